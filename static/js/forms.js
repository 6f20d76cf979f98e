// Forms with a time control: the seconds given by hand ([data-custom-time]) show only
// while "custom" is chosen. Without script they always show (progressive enhancement);
// the Content-Security-Policy allows no inline script, hence this file.
(function () {
  "use strict";

  function showCustomTime(select) {
    var custom = select.value === "custom";
    select.form.querySelectorAll("[data-custom-time]").forEach(function (field) {
      field.hidden = !custom;
    });
  }

  function setUp() {
    document.querySelectorAll("form select[name=time_control]").forEach(function (select) {
      showCustomTime(select);
      select.addEventListener("change", function () { showCustomTime(select); });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
