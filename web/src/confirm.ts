import { el } from './dom.js';

export interface ConfirmOptions {
  title: string;
  message: string;
  /** The destructive button's label: says what happens ("Delete model"), never just "OK". */
  action: string;
}

/**
 * Asks before a destructive action, in a modal dialog of the page (window.confirm cannot be
 * styled, labelled or themed). Cancel has focus first, so Enter or Escape never destroy anything
 * by accident; focus returns to where it was. Resolves to whether the action was confirmed.
 */
export function confirmAction({ title, message, action }: ConfirmOptions): Promise<boolean> {
  const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
  const heading = el('h2', { id: 'confirm-heading' }, title);
  const cancel = el('button', { type: 'button', class: 'ghost', value: 'cancel' }, 'Cancel');
  const confirm = el('button', { type: 'button', class: 'danger', value: 'confirm' }, action);
  const dialog = el(
    'dialog',
    { class: 'confirm', role: 'alertdialog', 'aria-labelledby': 'confirm-heading', 'aria-describedby': 'confirm-message' },
    heading,
    el('p', { id: 'confirm-message' }, message),
    el('div', { class: 'dialog-actions' }, cancel, confirm),
  );
  document.body.append(dialog);
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      dialog.remove();
      opener?.focus();
      resolve(dialog.returnValue === 'confirm');
    });
    for (const button of [cancel, confirm]) button.addEventListener('click', () => dialog.close(button.value));
    dialog.showModal();
    cancel.focus();
  });
}
