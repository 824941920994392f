// After an action that lands on "#messages" (owners' controls), focus moves to the message, so a
// screen reader reads it and the keyboard starts from there rather than from the top of the page.
(function () {
  const box = document.getElementById("messages");
  if (box && window.location.hash === "#messages") box.focus();
})();
