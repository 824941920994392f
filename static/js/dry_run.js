// The dry run without leaving the page: the chosen files and every field stay as they are, and the
// result appears right under the buttons. Without JavaScript the form posts and the page keeps the
// fields (files must be chosen again) and focuses the result (autofocus), which scrolls it into view.
(function () {
  const form = document.getElementById("submit-form");
  const result = document.getElementById("result");
  if (!form || !result || !window.fetch || !window.DOMParser) return;
  const button = form.querySelector("button[name='dry_run']");
  button.addEventListener("click", async (event) => {
    event.preventDefault();
    const body = new FormData(form);
    body.set("dry_run", "1");
    button.disabled = true;
    result.textContent = "Validating…";
    try {
      const response = await fetch(window.location.href, { method: "POST", body: body, credentials: "same-origin" });
      const page = new DOMParser().parseFromString(await response.text(), "text/html");
      const fresh = page.getElementById("result");
      result.replaceChildren(...(fresh ? fresh.childNodes : page.body.childNodes));
    } catch (error) {
      result.textContent = "The dry run could not reach the site; try again.";
    } finally {
      button.disabled = false;
      result.focus({ preventScroll: true });
      result.scrollIntoView({ block: "nearest" });
    }
  });
})();
