// Firebase e-mail and password sign-in on the web app's login page (no inline script, so a
// strict Content-Security-Policy holds): the ID token is posted to /admin/login/token/.
// The Firebase session lives in memory only: the web app's own session is the one that counts,
// and nothing is left in the browser to refresh (so only Identity Toolkit is ever called).
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
  const submit = form.querySelector("input[type=submit]");
  // Firebase's error codes -> the page's own (translated) words.
  const wrongCredentials = [
    "auth/invalid-credential",
    "auth/invalid-login-credentials",
    "auth/wrong-password",
    "auth/user-not-found",
    "auth/invalid-email",
  ];
  function explain(failure) {
    if (wrongCredentials.includes(failure.code)) {
      return settings.msgWrongCredentials;
    }
    if (failure.code === "auth/too-many-requests") {
      return settings.msgTooMany;
    }
    if (failure.code === "auth/user-disabled") {
      return settings.msgDisabled;
    }
    return settings.msgUnavailable;
  }
  form.addEventListener("submit", async function (event) {
    event.preventDefault();
    error.hidden = true;
    submit.disabled = true;
    const email = document.getElementById("firebase-email").value;
    const password = document.getElementById("firebase-password").value;
    try {
      await auth.setPersistence(firebase.auth.Auth.Persistence.NONE);
      const credential = await auth.signInWithEmailAndPassword(email, password);
      const tokenForm = document.getElementById("token-form");
      tokenForm.elements.id_token.value = await credential.user.getIdToken();
      tokenForm.submit();
    } catch (failure) {
      error.textContent = explain(failure);
      error.hidden = false;
      submit.disabled = false;
    }
  });
})();
