import { Api, errorMessage } from './api.js';
import { byId, say } from './dom.js';
import { setUpThemeToggle } from './theme.js';

const TOKEN_KEY = 'aiops.token';
/** A message for the sign-in form after a reload (the token stopped working). */
const NOTICE_KEY = 'aiops.sign-in-notice';

export interface PageOptions<T> {
  /** Checks that the token may use this page, resolving to what the page needs to know about it; throws (an ApiError) with the reason otherwise. */
  check(api: Api): Promise<T>;
  /** Runs the page once signed in, with what the check found. */
  start(api: Api, checked: T): Promise<void>;
}

/**
 * The parts every page shares: the theme toggle, the current page in the navigation, and signing
 * in with an API token kept in sessionStorage (this tab only; gone when it closes or on sign-out).
 * A token refused later (revoked, expired) signs the tab out with the service's reason.
 */
export function startPage<T>(options: PageOptions<T>): void {
  setUpThemeToggle(byId('theme-toggle', HTMLButtonElement));
  const page = document.documentElement.dataset.page;
  document.querySelector(`[data-nav="${page}"]`)?.setAttribute('aria-current', 'page');

  const section = byId('sign-in', HTMLElement);
  const form = byId('sign-in-form', HTMLFormElement);
  const input = byId('token', HTMLInputElement);
  const error = byId('sign-in-error', HTMLElement);
  const content = byId('content', HTMLDivElement);
  const signOut = byId('sign-out', HTMLButtonElement);
  let signedIn = false;

  const showForm = (message: string) => {
    sessionStorage.removeItem(TOKEN_KEY);
    section.hidden = false;
    content.hidden = true;
    signOut.hidden = true;
    say(error, message);
    input.focus();
  };
  const refused = (message: string) => {
    if (!signedIn) return;
    // Timers and streams of the signed-in page end with a reload; the reason survives it.
    sessionStorage.setItem(NOTICE_KEY, `Signed out: ${message}`);
    sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  };
  const enter = async (token: string) => {
    const api = new Api(token, refused);
    let checked: T;
    try {
      checked = await options.check(api);
    } catch (failure) {
      showForm(errorMessage(failure));
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, token);
    signedIn = true;
    section.hidden = true;
    content.hidden = false;
    signOut.hidden = false;
    say(error, '');
    await options.start(api, checked);
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    input.value = '';
    if (!token) showForm('Enter an API token.');
    else void enter(token);
  });
  signOut.addEventListener('click', () => {
    sessionStorage.removeItem(TOKEN_KEY);
    location.reload();
  });

  const notice = sessionStorage.getItem(NOTICE_KEY) ?? '';
  sessionStorage.removeItem(NOTICE_KEY);
  const saved = sessionStorage.getItem(TOKEN_KEY);
  if (saved && !notice) void enter(saved);
  else showForm(notice);
}
