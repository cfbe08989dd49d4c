"use strict";
// The update form (webapp.admin.updates): only the section of the chosen type is shown, so a
// notice shows no snow-report field. Without scripts every section shows, and the service
// keeps only the chosen type's fields.
document.addEventListener("DOMContentLoaded", function () {
  const type = document.querySelector("select[name=type]");
  if (!type) return; // an existing update keeps its type: its page shows its section alone
  function showChosen() {
    document.querySelectorAll("fieldset.update-type").forEach(function (section) {
      section.hidden = !section.classList.contains("update-type-" + type.value);
    });
  }
  type.addEventListener("change", showChosen);
  showChosen();
});
