// The tabs of a dossier (SPEC §2.8), shared by its page and its activity page (decision 034).
import { t } from '#lib/i18n.ts';

export function dossierTabs(modelId: string | null) {
  const self = modelId ? `/gearbox/${modelId}` : '';
  const tab = (id: string, label: string, href: string) => ({ id, label, href: modelId ? href : '' });
  return [
    tab('general', t('gearboxes.general'), self),
    tab('pannes', t('gearboxes.outagesTab'), `${self}?onglet=pannes`),
    tab('codes-defaut', t('gearboxes.errorCodesTab'), `${self}?onglet=codes-defaut`),
    tab('documents', t('documents.tab'), `${self}?onglet=documents`),
    tab('codes', t('gearboxes.codesTab'), `${self}?onglet=codes`),
    tab('procedures', t('procedures.tab'), `${self}?onglet=procedures`),
    tab('activite', t('audit.tab'), `${self}/activity`),
  ];
}
