// The header the photo upload script sends (PhotoUpload.astro, decision 088): the page its request
// is redirected to keeps its toast for the page the script opens next. Alone here: the script
// ships it, not the catalogue.
export const PHOTO_UPLOAD_HEADER = 'x-atelier-photos';
