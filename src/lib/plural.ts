// Counts in words (decision 025, amended): the call picks a count's singular or plural message,
// both written out, so the browser build carries each. A module of its own: an island that counts
// does not load the date formatter with it.

/** French puts 0 and 1 in the singular: «0 boîte», «1 boîte», «2 boîtes». */
export const singular = (count: number) => count < 2;
