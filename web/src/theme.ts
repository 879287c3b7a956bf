const THEME_KEY = 'aiops.theme';

type Theme = 'light' | 'dark';

function storedTheme(): Theme | null {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : null;
}

/**
 * Light and dark: the system's choice (prefers-color-scheme) until the toggle is used, then the
 * chosen theme, remembered in this browser (a display preference, nothing private).
 */
export function setUpThemeToggle(button: HTMLButtonElement): void {
  const system = matchMedia('(prefers-color-scheme: dark)');
  const root = document.documentElement;
  const apply = () => {
    const chosen = storedTheme();
    if (chosen) root.dataset.theme = chosen;
    else delete root.dataset.theme;
    button.setAttribute('aria-pressed', String((chosen ?? (system.matches ? 'dark' : 'light')) === 'dark'));
  };
  button.addEventListener('click', () => {
    localStorage.setItem(THEME_KEY, button.getAttribute('aria-pressed') === 'true' ? 'light' : 'dark');
    apply();
  });
  system.addEventListener('change', apply);
  apply();
}
