// Audit page: selecting a marked claim opens a pop-up with its findings and evidence; Escape or the
// close button shuts it and gives focus back to the mark. Without JavaScript each mark is a link to
// the claim's own page. Labels come from data attributes the server wrote in the page's language.
(function () {
  "use strict";
  var panel = document.getElementById("claim-panel");
  if (!panel) return;
  var body = panel.querySelector(".panel-body");
  var heading = panel.querySelector("h2");
  var closeBtn = panel.querySelector(".panel-close");
  var trigger = null;

  function entryFor(id) { return document.getElementById("f-" + id); }

  function title(ids) {
    if (ids.length > 1) return (panel.getAttribute("data-title-many") || "{ids}").replace("{ids}", ids.join(", "));
    return (panel.getAttribute("data-title-one") || "{id}").replace("{id}", ids[0]);
  }

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
    heading.textContent = title(ids);
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
    if (!link || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey || ev.button !== 0) return;
    if (open(link)) ev.preventDefault();
  });
  closeBtn.addEventListener("click", close);
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && !panel.hidden) {
      ev.preventDefault();
      close();
    }
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
