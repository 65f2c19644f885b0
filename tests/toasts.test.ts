// SPEC §9: a toast an island raises closes by itself after 3,000 ms (the flashed ones by CSS, e2e/toasts.spec.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { $toasts, showToast } from '#lib/toasts.ts';

describe("an island's toast", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => {
    vi.useRealTimers();
    $toasts.set([]);
  });

  it('is gone after 3,000 ms, not before', () => {
    showToast({ type: 'success', message: 'Utilisateur ajouté' });
    vi.advanceTimersByTime(2_999);
    expect($toasts.get().map((toast) => toast.message)).toEqual(['Utilisateur ajouté']);
    vi.advanceTimersByTime(1);
    expect($toasts.get()).toEqual([]);
  });
});
