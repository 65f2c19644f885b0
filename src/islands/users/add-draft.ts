// What is typed in «Ajouter un utilisateur» (walk31 F8): kept in this tab while the dialog is open,
// so a reload reopens it as it was; gone once the user is added or the dialog cancelled. Its own
// module: the list checks for a draft on load without fetching the dialogs' chunk.
import { isRole, type Role } from '#lib/roles.ts';

export type AddDraft = { displayName: string; email: string; defaultRole: Role };

const KEY = 'atelier:nouvel-utilisateur';

export function readAddDraft(): AddDraft | null {
  try {
    const draft = JSON.parse(sessionStorage.getItem(KEY) ?? 'null') as Partial<AddDraft> | null;
    if (!draft || typeof draft.displayName !== 'string' || typeof draft.email !== 'string' || !isRole(draft.defaultRole)) return null;
    return { displayName: draft.displayName, email: draft.email, defaultRole: draft.defaultRole };
  } catch {
    return null;
  }
}

export function keepAddDraft(draft: AddDraft) {
  try {
    sessionStorage.setItem(KEY, JSON.stringify(draft));
  } catch {
    // Storage refused: the dialog works all the same, only a reload loses it.
  }
}

export function dropAddDraft() {
  try {
    sessionStorage.removeItem(KEY);
  } catch {
    // Nothing kept.
  }
}
