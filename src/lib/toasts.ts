// Toasts shared by every island (SPEC §1, §9): a list, each removed after its own timeout, drawn
// into the page's toaster (Toaster.astro) from the first one an island shows: a page without an
// island loads none of this.
import { atom } from 'nanostores';

export type ToastType = 'success' | 'error';
export type Toast = { id: string; type: ToastType; message: string; timeout: number };

/** SPEC §9: toasts close by themselves after 3,000 ms (the flashed ones too: global.css). */
export const DEFAULT_TOAST_TIMEOUT = 3000;

export const $toasts = atom<Toast[]>([]);

let counter = 0;
const newId = () => `toast-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export function dismissToast(id: string): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

export function showToast(input: { type: ToastType; message: string; timeout?: number }): string {
  drawToasts();
  const toast: Toast = { id: newId(), timeout: DEFAULT_TOAST_TIMEOUT, ...input };
  $toasts.set([...$toasts.get(), toast]);
  if (toast.timeout > 0 && typeof setTimeout !== 'undefined') setTimeout(() => dismissToast(toast.id), toast.timeout);
  return toast.id;
}

let drawing = false;

/** From the first call on, the list is drawn in the toaster's two regions, with a close button each. */
function drawToasts(): void {
  const root = typeof document === 'undefined' ? null : document.querySelector<HTMLElement>('[data-toaster]');
  if (drawing || !root) return;
  drawing = true;
  const icons = document.querySelector<HTMLTemplateElement>('[data-toast-icons]')!.content.children;
  $toasts.subscribe((toasts) => {
    for (const type of ['success', 'error'] as const) {
      const region = root.querySelector(`[data-region="${type}"]`)!;
      const wanted = toasts.filter((toast) => toast.type === type);
      for (const node of region.querySelectorAll<HTMLElement>('[data-id]')) {
        if (!wanted.some((toast) => toast.id === node.dataset.id)) node.remove();
      }
      for (const toast of wanted) {
        if (region.querySelector(`[data-id="${toast.id}"]`)) continue;
        const item = document.createElement('div');
        // As the flashed ones: the close button (44 px on a touch screen) in the corner, not in the
        // flow, so a one-line toast is one line high (decision 046).
        item.className = `toast relative pr-14 ${type === 'success' ? 'border-success' : 'border-danger'}`;
        item.dataset.toast = type;
        item.dataset.id = toast.id;
        item.append(icons[type === 'success' ? 0 : 1]!.cloneNode(true));
        const text = document.createElement('p');
        text.className = 'flex-1 text-sm';
        text.textContent = toast.message;
        const close = document.createElement('button');
        close.type = 'button';
        close.className = 'absolute top-2 right-2 rounded p-1 text-muted hover:text-ink';
        // The toast lets taps through to what it covers (global.css); its close button does not.
        close.style.pointerEvents = 'auto';
        close.setAttribute('aria-label', root.dataset.closeLabel ?? '');
        close.append(icons[2]!.cloneNode(true));
        close.addEventListener('click', () => dismissToast(toast.id));
        item.append(text, close);
        region.append(item);
      }
    }
  });
}

/** A toast raised by a server page before a redirect, carried by a short-lived cookie. */
/** `signedOut`: the sign-out's own, which the sign-in page passes on to the other tabs. */
export type FlashToast = { type: ToastType; message: string; signedOut?: true };
export const FLASH_COOKIE = 'atelier_flash';
