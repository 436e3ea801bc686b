// pages/auth.js - sign in and sign up (#/signin, #/signup; ?next= returns there).
import { ApiError } from "../api.js";
import { h, replace } from "../dom.js";

export function render(ctx) {
  const signup = ctx.mode === "signup";
  const next = ctx.query.get("next") || "/";
  if (ctx.session.me) {
    ctx.navigate("#" + next);
    return { el: h("p", { class: "loading" }, "Signed in."), title: "" };
  }
  const msg = h("div", { role: "alert" });
  const name = h("input", {
    id: "name",
    name: "username",
    autocomplete: "username",
    required: true,
    minlength: "3",
    maxlength: "32",
    pattern: "[a-z0-9][a-z0-9_.\\-]{2,31}",
    autocapitalize: "none",
    spellcheck: "false",
  });
  const pass = h("input", {
    id: "password",
    name: "password",
    type: "password",
    autocomplete: signup ? "new-password" : "current-password",
    required: true,
    minlength: "8",
    maxlength: "256",
  });
  const btn = h("button", { class: "primary", type: "submit" }, signup ? "Create the account" : "Sign in");
  const form = h(
    "form",
    {
      class: "card form",
      novalidate: true,
      onsubmit: async (ev) => {
        ev.preventDefault();
        replace(msg);
        const n = name.value.trim();
        const p = pass.value;
        const bad = check(n, p, signup);
        if (bad) {
          replace(msg, h("p", { class: "error" }, bad.text));
          (bad.field === "name" ? name : pass).focus();
          return;
        }
        btn.disabled = true;
        try {
          await ctx.session.signin(n, p, signup);
          ctx.navigate("#" + next);
        } catch (e) {
          replace(msg, h("p", { class: "error" }, words(e, signup)));
          (e instanceof ApiError && e.field === "password" ? pass : name).focus();
        } finally {
          btn.disabled = false;
        }
      },
    },
    h("h1", null, signup ? "Create an account" : "Sign in"),
    h("label", { for: "name" }, "User name"),
    name,
    signup ? h("p", { class: "hint" }, "3 to 32 characters: lower-case letters, digits, _ . - (starting with a letter or digit).") : null,
    h("label", { for: "password" }, "Password"),
    pass,
    signup ? h("p", { class: "hint" }, "At least 8 characters.") : null,
    msg,
    h("div", { class: "row", style: "margin-top: 1rem" }, btn, h("span", { class: "spacer" }),
      signup
        ? h("a", { href: "#/signin" + (next !== "/" ? "?next=" + encodeURIComponent(next) : "") }, "I have an account")
        : h("a", { href: "#/signup" + (next !== "/" ? "?next=" + encodeURIComponent(next) : "") }, "Create an account")),
  );
  return {
    el: form,
    title: signup ? "Sign up" : "Sign in",
    mounted: () => name.focus(),
  };
}

/* The server's rules (docs/api.md), checked first for a quicker answer. */
export function check(name, pass, signup) {
  if (!name) return { field: "name", text: "Enter your user name." };
  if (signup && !/^[a-z0-9][a-z0-9_.-]{2,31}$/.test(name))
    return { field: "name", text: "User names are 3 to 32 of a-z 0-9 _ . - and start with a letter or digit." };
  if (!pass) return { field: "password", text: "Enter your password." };
  if (signup && pass.length < 8) return { field: "password", text: "Passwords have at least 8 characters." };
  return null;
}

function words(e, signup) {
  if (!(e instanceof ApiError)) return String(e);
  switch (e.code) {
    case "bad_credentials":
      return "That user name and password do not match an account.";
    case "conflict":
      return "That user name is taken: choose another.";
    case "signup_closed":
      return "Sign-up is closed on this server: ask an instructor for an account.";
    case "network":
      return "The server is not answering; try again in a moment.";
    case "quota":
      return "Too many attempts; wait a little and try again.";
    default:
      return (signup ? "Could not create the account: " : "Could not sign in: ") + e.message;
  }
}
