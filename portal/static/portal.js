// The portal's few scripts. Every page works without them; they add a
// copy button for a new API key and a progress bar while a CSV uploads.
"use strict";

document.addEventListener("click", function (ev) {
  var b = ev.target.closest("button.copy");
  if (!b) return;
  var text = document.getElementById(b.dataset.copy).textContent;
  navigator.clipboard.writeText(text).then(function () { b.textContent = "Copied"; });
});

// The upload goes by XMLHttpRequest so that its progress can be shown;
// the answer is a whole page, which replaces this one.
document.addEventListener("submit", function (ev) {
  var form = ev.target;
  if (form.id !== "upload-form" || !window.FormData) return;
  ev.preventDefault();
  var bar = document.getElementById("upload-progress");
  bar.hidden = false;
  var xhr = new XMLHttpRequest();
  xhr.open("POST", form.action);
  xhr.upload.addEventListener("progress", function (e) {
    if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
  });
  xhr.addEventListener("load", function () {
    document.open();
    document.write(xhr.responseText);
    document.close();
  });
  xhr.send(new FormData(form));
});
