// Copy buttons (a conclusion's full id): shown only where the clipboard API works; no inline script (CSP).
(function () {
  "use strict";
  document.querySelectorAll("button.copy-id[data-copy]").forEach(function (button) {
    if (!navigator.clipboard) { return; }
    button.hidden = false;
    var label = button.textContent;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(button.getAttribute("data-copy")).then(function () {
        button.textContent = "✓ " + label;
        setTimeout(function () { button.textContent = label; }, 1500);
      });
    });
  });
})();
