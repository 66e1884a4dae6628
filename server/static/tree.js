// Proof trees: "Expand all" / "Collapse all" buttons. The trees are <details> and work without this.
(function () {
  "use strict";
  document.querySelectorAll("[data-tree-tools]").forEach(function (tools) {
    var tree = tools.nextElementSibling;
    if (!tree) return;
    tools.hidden = false;
    tools.addEventListener("click", function (ev) {
      var btn = ev.target.closest("button[data-expand]");
      if (!btn) return;
      var open = btn.getAttribute("data-expand") === "all";
      tree.querySelectorAll("details").forEach(function (d) { d.open = open; });
    });
  });
})();
