// The header the photo upload script sends (PhotoUpload.astro, decision 088): its posts are
// answered without the page, and a page it is led to keeps its toast for the page the script
// opens next. Alone here: the script ships it, not the catalogue.
export const PHOTO_UPLOAD_HEADER = 'x-atelier-photos';
/** Where the script's post answers the page to open (a 204, not the page: decision 088). */
export const PHOTO_UPLOAD_LOCATION = 'x-atelier-location';
