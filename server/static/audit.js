// Audit page: selecting a marked claim opens a panel with its findings and evidence.
// Without JavaScript each mark is a link to the same entry in the findings list below the text.
(function () {
  "use strict";
  var panel = document.getElementById("claim-panel");
  if (!panel) return;
  var body = panel.querySelector(".panel-body");
  var heading = panel.querySelector("h2");
  var closeBtn = panel.querySelector(".panel-close");
  var trigger = null;

  function entryFor(id) { return document.getElementById("f-" + id); }

  function open(link) {
    var mark = link.querySelector("mark[data-claim-id]");
    if (!mark) return false;
    var ids = (mark.getAttribute("data-claims") || mark.getAttribute("data-claim-id")).split(/\s+/);
    var list = document.createElement("ul");
    list.className = "findings-panel";
    ids.forEach(function (id) {
      var entry = entryFor(id);
      if (!entry) return;
      var copy = entry.cloneNode(true);
      copy.removeAttribute("id");
      copy.querySelectorAll("[id]").forEach(function (n) { n.removeAttribute("id"); });
      copy.setAttribute("data-panel-claim", id);
      list.appendChild(copy);
    });
    if (!list.children.length) return false;
    body.textContent = "";
    body.appendChild(list);
    heading.textContent = ids.length > 1 ? "Claims " + ids.join(", ") : "Claim " + ids[0];
    panel.hidden = false;
    trigger = link;
    panel.focus();
    return true;
  }

  function close() {
    panel.hidden = true;
    if (trigger) trigger.focus();
    trigger = null;
  }

  document.addEventListener("click", function (ev) {
    var link = ev.target.closest("a.claim");
    if (!link || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    if (open(link)) ev.preventDefault();
  });
  closeBtn.addEventListener("click", close);
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !panel.hidden) close();
  });

  // highlight every piece of the claim named in the address (#S001-C005), e.g. from a proof tree
  function highlight() {
    document.querySelectorAll("mark.targeted").forEach(function (m) { m.classList.remove("targeted"); });
    var id = decodeURIComponent(location.hash.slice(1));
    if (!/^S\d+-C\d+$/.test(id)) return;
    document.querySelectorAll("mark[data-claims]").forEach(function (m) {
      if ((" " + m.getAttribute("data-claims") + " ").indexOf(" " + id + " ") >= 0) m.classList.add("targeted");
    });
  }
  window.addEventListener("hashchange", highlight);
  highlight();
})();
