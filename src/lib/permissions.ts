// The capability table: what each role may do beyond reaching a route. The API checks it;
// pages read it only to decide which buttons to show.
import type { BucketId } from '#lib/storage/files.ts';
import type { Role } from './roles.ts';

export const capabilities = {
  /** SPEC §2.5: the pencil of the profile menu is not offered to mechanics. */
  editOwnProfile: ['app_admin', 'diagnostician', 'commercial'],
  /** SPEC §2.9, §6: the users screen and every operation on other accounts. */
  manageUsers: ['app_admin'],
  /** SPEC §2.9: the symptoms and conditions base is kept by admins and diagnosticians. */
  manageBase: ['app_admin', 'diagnostician'],
  /** SPEC §2.1, §6: technical dossiers are written by admins and diagnosticians, read by all. */
  manageGearboxModels: ['app_admin', 'diagnostician'],
  /** SPEC §2.9, §6: the stock is read and kept by admins, diagnosticians and commercials. */
  manageStock: ['app_admin', 'diagnostician', 'commercial'],
  /** SPEC §2.7, §6: orders are created, edited and deleted by admins and diagnosticians, read by all. */
  manageOrders: ['app_admin', 'diagnostician'],
  /** SPEC §2.7: the mechanic follows the validated procedure, answers its checkpoints, closes the order. */
  followProcedures: ['app_admin', 'diagnostician', 'mechanic'],
  /** SPEC §4: a closed order is read-only; an admin may reopen it (recorded). */
  reopenOrders: ['app_admin'],
  /** Issue 32: the workshop at a glance, for those who run the workshop and its diagnostics. */
  viewOverview: ['app_admin', 'diagnostician'],
  /** Issue 32, decision 090: the customer's outage sheet, handed by those who diagnose or talk to customers. */
  handOutageSheets: ['app_admin', 'diagnostician', 'commercial'],
} as const satisfies Record<string, readonly Role[]>;

export type Capability = keyof typeof capabilities;

export function can(role: Role | null | undefined, capability: Capability): boolean {
  return !!role && (capabilities[capability] as readonly Role[]).includes(role);
}

/**
 * Files obey the table too (issue 14): a bucket's files are uploaded, replaced and deleted by
 * whoever may write what they belong to, and read by every role, as orders and dossiers are.
 */
export const bucketWriters = {
  /** The diagnostic's imported files. */
  'diagnostic-import': 'manageOrders',
  /** An order's measure and curve files, and a dossier measure's procedure files. */
  measure: 'manageOrders',
  /** An outage's images, videos and files, in its dossier. */
  outage: 'manageGearboxModels',
  /** A dossier's documents. */
  documents: 'manageGearboxModels',
  /**
   * Checkpoints' photos (followProcedures) and measures' (manageOrders, checked by the service).
   * Nobody writes them through the storage API (server/storage/routes.ts refuses): only the
   * server's making drops a photo's GPS position and EXIF, so a photo sent as it is could keep them.
   */
  photo: 'followProcedures',
} as const satisfies Record<BucketId, Capability>;

export function canWriteBucket(role: Role | null | undefined, bucket: BucketId): boolean {
  return can(role, bucketWriters[bucket]);
}
