/**
 * The console's one script and its sign-in form. A person signs in on the page (a token, or a name and password);
 * the credential stays in this tab's sessionStorage and is sent as an Authorization header by fetch, never as a
 * cookie or a browser-cached login, so a request another site forges carries nothing. The page refreshes itself by
 * fetching its own HTML with that header, and skips a refresh while someone types in one of its fields.
 */
import { STATUS_REFRESH_SECONDS } from './refresh.js';

export const SIGN_IN_FORM = `<form id="sign-in" class="sign-in" autocomplete="off">
<span id="signed-in" class="muted"></span>
<input type="password" name="token" placeholder="token" aria-label="token">
<span class="muted">or</span> <input type="text" name="user" placeholder="name" aria-label="name">
<input type="password" name="password" placeholder="password" aria-label="password">
<button type="submit">Sign in</button> <button type="button" id="sign-out">Sign out</button>
</form>`;

export const CONSOLE_SCRIPT = `<script>
const KEY = 'supply-sync-credential';
let result = null;
const credential = () => sessionStorage.getItem(KEY);
const withCredential = (headers) => {
  const value = credential();
  return value ? Object.assign({ authorization: value }, headers) : headers;
};
function shown() {
  const who = document.getElementById('signed-in');
  if (who) who.textContent = credential() ? 'signed in for this tab' : 'sign in to act';
  const out = document.getElementById('console-result');
  if (out && result) { out.textContent = result.text; out.dataset.status = result.status; }
}
async function refresh() {
  const response = await fetch(location.pathname, { headers: withCredential({ accept: 'text/html' }), credentials: 'omit' });
  const next = new DOMParser().parseFromString(await response.text(), 'text/html');
  document.body.replaceWith(next.body);
  if (response.status === 401 && credential()) {
    result = { text: 'sign-in refused: check the token or the name and password', status: '401' };
  }
  shown();
}
const typing = () => Array.from(document.querySelectorAll('input')).some(
  (input) => input === document.activeElement || (input.name !== 'token' && input.name !== 'user' && input.name !== 'password' && input.value !== ''),
);
setInterval(() => { if (!typing()) refresh(); }, ${STATUS_REFRESH_SECONDS * 1000});
document.addEventListener('submit', (event) => {
  if (!(event.target instanceof HTMLFormElement) || event.target.id !== 'sign-in') return;
  event.preventDefault();
  const form = event.target.elements;
  const utf8 = (text) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
  const value = form.token.value
    ? 'Bearer ' + form.token.value
    : 'Basic ' + utf8(form.user.value + ':' + form.password.value);
  sessionStorage.setItem(KEY, value);
  result = null;
  shown();
  refresh();
});
async function act(target) {
  if (target.dataset.confirm && !confirm(target.dataset.confirm)) return;
  let body = target.dataset.body ? JSON.parse(target.dataset.body) : {};
  if (target.dataset.reason !== undefined) {
    const input = document.querySelector('input[data-reason-for="' + CSS.escape(target.dataset.reason) + '"]');
    if (input && input.value) body = { reason: input.value };
  }
  const out = document.getElementById('console-result');
  delete out.dataset.status;
  out.textContent = target.textContent + ': sent...';
  // The page may be served under a prefix (an office's /companies/<name>/status): actions go under the same one.
  const page = location.pathname;
  const base = page.endsWith('/status') ? page.slice(0, -'/status'.length) : '';
  const response = await fetch(base + target.dataset.post, {
    method: 'POST', credentials: 'omit',
    headers: withCredential({ 'content-type': 'application/json' }), body: JSON.stringify(body),
  });
  const answer = await response.json().catch(() => ({}));
  const text = response.ok ? 'done' : (answer.detail || answer.error || response.status);
  result = { text: target.textContent + ': ' + text, status: String(response.status) };
  if (!response.ok) return shown();
  for (const input of document.querySelectorAll('input[data-reason-for]')) input.value = '';
  await refresh();
  document.body.dataset.refreshed = String(Date.now());
}
document.addEventListener('click', (event) => {
  const target = event.target;
  if (target instanceof HTMLButtonElement && target.id === 'sign-out') {
    sessionStorage.removeItem(KEY);
    result = null;
    return refresh();
  }
  if (target instanceof HTMLButtonElement && target.dataset.post) act(target);
});
if (credential() && document.getElementById('sign-in-only')) refresh(); else shown();
</script>`;
