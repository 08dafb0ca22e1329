(function () {
  "use strict";
  var errors = [];
  function record(text) {
    errors.push(String(text));
    document.body.dataset.errors = errors.join("\n");
  }
  window.ringsideRecordError = record;
  window.onerror = function (message, source, line) {
    record(message + (line ? " (line " + line + ")" : ""));
  };
  window.addEventListener("unhandledrejection", function (event) {
    record("unhandled rejection: " + event.reason);
  });
  var original = console.error;
  console.error = function () {
    record(Array.prototype.map.call(arguments, String).join(" "));
    original.apply(console, arguments);
  };
})();
