// /docs: start Swagger UI (served by this server, see server/docs_page.py) on the API's OpenAPI document.
(function () {
  "use strict";
  function start() {
    var el = document.getElementById("swagger-ui");
    if (!el || typeof window.SwaggerUIBundle !== "function") { return; }
    window.SwaggerUIBundle({ url: el.getAttribute("data-spec"), domNode: el, deepLinking: true,
                             tryItOutEnabled: false, validatorUrl: null });
  }
  if (document.readyState === "loading") { document.addEventListener("DOMContentLoaded", start); } else { start(); }
})();
