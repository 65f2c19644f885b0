// The symptoms and conditions base (SPEC §2.9): the four lists every diagnostic picks from.
import { z } from 'zod';
import { t } from '#lib/i18n.ts';
import { fr } from '#lib/i18n/fr.ts';
import { required } from '#lib/validation.ts';

export const baseKinds = ['condition', 'symptom', 'component', 'outage_type'] as const;
export type BaseKind = (typeof baseKinds)[number];

/** Tabs in SPEC §2.9's order, with the slug of their URL. */
export const baseTabs: readonly { kind: BaseKind; slug: string; label: string; singular: string }[] = [
  { kind: 'condition', slug: 'conditions', label: fr.labels.baseKind.condition, singular: fr.labels.baseKindSingular.condition },
  { kind: 'symptom', slug: 'symptomes', label: fr.labels.baseKind.symptom, singular: fr.labels.baseKindSingular.symptom },
  { kind: 'component', slug: 'composants', label: fr.labels.baseKind.component, singular: fr.labels.baseKindSingular.component },
  { kind: 'outage_type', slug: 'types-de-panne', label: fr.labels.baseKind.outage_type, singular: fr.labels.baseKindSingular.outage_type },
];

export const baseItemSchema = z.object({ name: required().max(120, t('validation.maxLength', { max: 120 })) });

/** The page on its tab and search, with `extra` parameters (`renommer`, `supprimer`). */
export function baseHref({ tab, search }: { tab: (typeof baseTabs)[number]; search: string }, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ onglet: tab.slug, ...(search ? { recherche: search } : {}), ...extra });
  return `/symptoms-conditions-base?${query}`;
}
