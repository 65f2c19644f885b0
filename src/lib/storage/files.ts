// The storage buckets of SPEC §5: which files each accepts. Shared by the storage API, which
// checks content and extension, and the upload fields, which filter what can be picked.
import { t } from '#lib/i18n.ts';
export type FileKind = 'pdf' | 'png' | 'jpg' | 'txt' | 'csv' | 'xlsx' | 'xls' | 'video';

export const fileKinds: Record<FileKind, { extensions: readonly string[]; mimeTypes: readonly string[]; text?: true }> = {
  pdf: { extensions: ['pdf'], mimeTypes: ['application/pdf'] },
  png: { extensions: ['png'], mimeTypes: ['image/png'] },
  jpg: { extensions: ['jpg', 'jpeg'], mimeTypes: ['image/jpeg'] },
  txt: { extensions: ['txt'], mimeTypes: ['text/plain'], text: true },
  csv: { extensions: ['csv'], mimeTypes: ['text/csv'], text: true },
  xlsx: { extensions: ['xlsx'], mimeTypes: ['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'] },
  xls: { extensions: ['xls'], mimeTypes: ['application/x-cfb', 'application/vnd.ms-excel'] },
  video: {
    extensions: ['mp4', 'webm', 'mov', 'avi', 'mkv'],
    mimeTypes: ['video/mp4', 'video/webm', 'video/quicktime', 'video/vnd.avi', 'video/x-msvideo', 'video/x-matroska'],
  },
};

export const buckets = {
  'diagnostic-import': { kinds: ['pdf', 'jpg', 'txt', 'csv'] },
  measure: { kinds: ['png', 'jpg', 'pdf', 'txt', 'xlsx', 'csv'] },
  outage: { kinds: ['png', 'jpg', 'pdf', 'video'] },
  documents: { kinds: ['pdf', 'png', 'jpg', 'csv', 'xls', 'video'] },
  /** Checkpoints' and measures' photos, as the server made them (decision 088): never written through the storage API. */
  photo: { kinds: ['jpg'] },
} as const satisfies Record<string, { kinds: readonly FileKind[] }>;

export type BucketId = keyof typeof buckets;

export const PHOTO_BUCKET = 'photo' satisfies BucketId;

export function isBucketId(value: unknown): value is BucketId {
  return typeof value === 'string' && Object.hasOwn(buckets, value);
}

/** A page's link to a stored file (decision 095): signed when tapped, so it outlives the storage API's hour. */
export const fileHref = (fileId: string) => `/files/${fileId}`;

/** The `accept` attribute of a file input for a bucket. */
export function acceptOf(bucket: BucketId): string {
  return buckets[bucket].kinds.flatMap((kind) => fileKinds[kind].extensions.map((ext) => `.${ext}`)).join(',');
}

export const UNSUPPORTED_FORMAT = t('validation.unsupportedFormat');

/**
 * RFC 6266 / 5987: the name as given in `filename*` (UTF-8), and an ASCII stand-in in
 * `filename` for clients that read only that one.
 */
export function contentDisposition(disposition: 'inline' | 'attachment', name: string): string {
  const ascii = name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\x20-\x7e]/g, '_')
    .replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
