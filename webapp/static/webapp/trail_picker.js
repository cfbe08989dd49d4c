"use strict";
// The trail picker (webapp.trail_admin.TrailPicker): the search box shows the trails whose
// label holds every word typed; only the trails of the system chosen on the form are listed.
(function () {
  function setUp(picker) {
    const search = picker.querySelector(".trail-picker-search");
    const count = picker.querySelector(".trail-picker-count");
    const none = picker.querySelector(".trail-picker-none");
    const options = Array.from(picker.querySelectorAll(".trail-picker-option"));
    const systemSelect = picker.closest("form").querySelector("[name=trail_system]");
    search.hidden = false;
    count.hidden = false;

    function refresh() {
      const words = search.value.toLowerCase().split(/\s+/).filter(Boolean);
      const system = systemSelect && systemSelect.value;
      let shown = 0;
      options.forEach(function (option) {
        const input = option.querySelector("input");
        const text = option.textContent.toLowerCase();
        const ofSystem = !system || !input.dataset.system || input.dataset.system === system;
        const show = ofSystem && (input.checked || words.every((w) => text.includes(w)));
        option.hidden = !show;
        if (show) shown += 1;
      });
      const ticked = options.filter((o) => o.querySelector("input").checked).length;
      count.textContent = picker.dataset.countText
        ? picker.dataset.countText.replace("%(ticked)s", ticked)
        : ticked + " ✓";
      none.hidden = shown > 0;
    }

    search.addEventListener("input", refresh);
    search.addEventListener("keydown", function (event) {
      if (event.key === "Enter") event.preventDefault(); // not a submit of the whole form
    });
    picker.addEventListener("change", refresh);
    if (systemSelect) systemSelect.addEventListener("change", refresh);
    refresh();
  }

  document.addEventListener("DOMContentLoaded", function () {
    document.querySelectorAll("[data-trail-picker]").forEach(setUp);
  });
})();
