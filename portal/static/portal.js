// The portal's few scripts. Every page works without them; they add a
// copy button for a new API key and a progress bar while a CSV uploads
// and is read.
"use strict";

document.addEventListener("click", function (ev) {
  var b = ev.target.closest("button.copy");
  if (!b) return;
  var text = document.getElementById(b.dataset.copy).textContent;
  navigator.clipboard.writeText(text).then(function () { b.textContent = "Copied"; });
});

// The upload goes by XMLHttpRequest so that its progress can be shown:
// the bar follows the bytes sent, then, once the file is up, the server's
// reading of it (checking every row, then adding them), which htmx polls
// from /portal/uploads/{id} until the answer comes. The answer is a whole
// page, which replaces this one.
document.addEventListener("submit", function (ev) {
  var form = ev.target;
  if (form.id !== "upload-form" || !window.FormData) return;
  ev.preventDefault();
  var bar = document.getElementById("upload-progress");
  var status = document.getElementById("upload-status");
  bar.hidden = false;
  var xhr = new XMLHttpRequest();
  xhr.open("POST", form.action);
  xhr.upload.addEventListener("progress", function (e) {
    if (e.lengthComputable) bar.value = Math.round(100 * e.loaded / e.total);
  });
  xhr.upload.addEventListener("load", function () {
    if (!window.htmx || !status) return;
    bar.hidden = true;
    status.hidden = false;
    pollStatus(status, 20);
  });
  xhr.addEventListener("load", function () {
    document.open();
    document.write(xhr.responseText);
    document.close();
  });
  xhr.send(new FormData(form));
});

// The server makes an upload's status once it has read the upload's first
// fields, which on a busy server can come after the browser has sent the
// whole file: until then the status answers 404, and the page asks again
// every half second, a few times, rather than stop polling.
function pollStatus(status, tries) {
  // htmx reports the failure on the document, naming the target.
  document.addEventListener("htmx:responseError", function retry(ev) {
    if (ev.detail.target !== status) return;
    document.removeEventListener("htmx:responseError", retry);
    if (tries > 1) setTimeout(function () { pollStatus(status, tries - 1); }, 500);
  });
  htmx.ajax("GET", status.dataset.poll, {target: status, swap: "outerHTML ignoreTitle:true", select: "#upload-status"});
}
