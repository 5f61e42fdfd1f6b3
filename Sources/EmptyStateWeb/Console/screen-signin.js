// Sign in: an admin token, sent once in the body of POST /v1/admin/session (never in a URL),
// exchanged for an HttpOnly session cookie. The field is emptied as soon as the request is made;
// the console keeps no token anywhere (no storage, no variable after this function).

import { post } from "./api.js";
import { field, h } from "./dom.js";

export function mount(main, { message, onSignedIn }, context) {
  context.title("Sign in");
  const input = h("input", {
    type: "password",
    name: "token",
    autocomplete: "current-password",
    spellcheck: "false",
    required: true,
  });
  const token = field("Admin token", input, {
    hint: "An admin API token (viewer, editor, reviewer or admin). It is sent once to start a session of at most 12 hours (30 minutes without activity); the console then holds only a cookie that its scripts cannot read.",
  });
  const button = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h(
    "form",
    {
      class: "signin",
      novalidate: true,
      async onsubmit(event) {
        event.preventDefault();
        const secret = input.value.trim();
        input.value = "";
        if (!secret) {
          token.setError("Paste an admin token.");
          input.focus();
          return;
        }
        button.disabled = true;
        token.setError("");
        try {
          const { data } = await post("/v1/admin/session", { token: secret });
          onSignedIn(data);
        } catch (error) {
          token.setError(error.status === 401 ? "That is not an admin token." : error.message);
          input.focus();
        } finally {
          button.disabled = false;
        }
      },
    },
    token.root,
    button,
  );
  main.append(h("h1", { tabindex: "-1" }, "Sign in"));
  if (message) main.append(h("p", { class: "notice", role: "status" }, message));
  main.append(form);
  input.focus();
}
