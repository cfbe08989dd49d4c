// Firebase e-mail and password sign-in on the web app's login page (no inline script, so a
// strict Content-Security-Policy holds): the ID token is posted to /admin/login/token/.
(function () {
  "use strict";
  const form = document.getElementById("firebase-form");
  if (!form || typeof firebase === "undefined") {
    return;
  }
  const settings = form.dataset;
  const app = firebase.initializeApp({
    apiKey: settings.apiKey,
    authDomain: settings.authDomain,
    projectId: settings.projectId,
  });
  const auth = app.auth();
  if (settings.emulatorHost) {
    auth.useEmulator("http://" + settings.emulatorHost, { disableWarnings: true });
  }
  const error = document.getElementById("firebase-error");
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    error.hidden = true;
    const email = document.getElementById("firebase-email").value;
    const password = document.getElementById("firebase-password").value;
    try {
      const credential = await auth.signInWithEmailAndPassword(email, password);
      const tokenForm = document.getElementById("token-form");
      tokenForm.elements.id_token.value = await credential.user.getIdToken();
      tokenForm.submit();
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    }
  });
})();
