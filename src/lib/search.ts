/** `%` and `_` typed in a search box are literal characters, not LIKE wildcards. */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
