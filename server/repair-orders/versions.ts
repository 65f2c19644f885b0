// What a form was filled over, as a short digest of the saved values it edits (decision 077): a
// save made over another version is refused, never written over a colleague's. A digest of the
// form's own values rather than a counter: a change elsewhere on the order refuses nothing.
import { createHash } from 'node:crypto';

export const versionOf = (saved: readonly unknown[]): string => createHash('sha256').update(JSON.stringify(saved)).digest('base64url').slice(0, 22);
