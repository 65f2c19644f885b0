// Toasts shared by every island (SPEC §1, §9): a list, each removed after its own timeout.
import { atom } from 'nanostores';

export type ToastType = 'success' | 'error';
export type Toast = { id: string; type: ToastType; message: string; timeout: number };

export const DEFAULT_TOAST_TIMEOUT = 5000;

export const $toasts = atom<Toast[]>([]);

let counter = 0;
const newId = () => `toast-${Date.now().toString(36)}-${(counter++).toString(36)}`;

export function dismissToast(id: string): void {
  $toasts.set($toasts.get().filter((t) => t.id !== id));
}

export function showToast(input: { type: ToastType; message: string; timeout?: number }): string {
  const toast: Toast = { id: newId(), timeout: DEFAULT_TOAST_TIMEOUT, ...input };
  $toasts.set([...$toasts.get(), toast]);
  if (toast.timeout > 0 && typeof setTimeout !== 'undefined') setTimeout(() => dismissToast(toast.id), toast.timeout);
  return toast.id;
}

/** A toast raised by a server page before a redirect, carried by a short-lived cookie. */
export type FlashToast = { type: ToastType; message: string };
export const FLASH_COOKIE = 'atelier_flash';
