const THEME_KEY = 'aiops.theme';

type Theme = 'light' | 'dark';

function storedTheme(): Theme | null {
  const value = localStorage.getItem(THEME_KEY);
  return value === 'light' || value === 'dark' ? value : null;
}

/**
 * Light and dark: the system's choice (prefers-color-scheme) until the toggle is used, then the
 * chosen theme, remembered in this browser (a display preference, nothing private). The toggle
 * says what it will do ("Use dark theme"), not what is on.
 */
export function setUpThemeToggle(button: HTMLButtonElement): void {
  const system = matchMedia('(prefers-color-scheme: dark)');
  const root = document.documentElement;
  const current = (): Theme => storedTheme() ?? (system.matches ? 'dark' : 'light');
  const apply = () => {
    const chosen = storedTheme();
    if (chosen) root.dataset.theme = chosen;
    else delete root.dataset.theme;
    button.textContent = current() === 'dark' ? 'Use light theme' : 'Use dark theme';
  };
  button.addEventListener('click', () => {
    localStorage.setItem(THEME_KEY, current() === 'dark' ? 'light' : 'dark');
    apply();
  });
  system.addEventListener('change', apply);
  apply();
}
