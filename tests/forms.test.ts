// The one reading of a refused form post (src/lib/forms.server.ts): what the user sees beside
// each field or above the form, whatever the service, the database or the file store refused.
import { describe, expect, it } from 'vitest';
import { DomainError, conflict, invalid, notFound } from '#server/errors.ts';
import { formFailureOf } from '#lib/forms.server.ts';

describe('a refused form post', () => {
  it('puts each field message beside its field, named as the form names it', () => {
    const failure = formFailureOf(invalid({ 'object.gearboxMeasureId': 'Mesure inconnue', 'object.comment': 'Trop long' }), {
      rename: { gearboxMeasureId: 'name' },
    });
    expect(failure).toMatchObject({ errors: { name: 'Mesure inconnue', comment: 'Trop long' }, formError: null, code: 'validation' });
  });

  it('says a message for a field the form does not show above the form', () => {
    const failure = formFailureOf(invalid({ outageIds: 'Choisissez au moins une panne' }), { fields: [] });
    expect(failure).toMatchObject({ errors: {}, formError: 'Choisissez au moins une panne' });
  });

  it("shows a conflict's message, and a taken value beside its field", () => {
    expect(formFailureOf(conflict('closed', 'Cet ordre de réparation est clôturé : il ne peut plus être modifié.')).formError).toBe(
      'Cet ordre de réparation est clôturé : il ne peut plus être modifié.',
    );
    const failure = formFailureOf(conflict('email-already-in-use', 'Email non disponible', { field: 'email' }));
    expect(failure).toMatchObject({ errors: { email: 'Email non disponible' }, formError: null, reason: 'email-already-in-use' });
  });

  it('keeps the reasons a deletion is refused', () => {
    const failure = formFailureOf(conflict('delete-refused', 'Suppression impossible', { reasons: ['ordres de réparation (2)'] }));
    expect(failure).toMatchObject({ formError: 'Suppression impossible', reasons: ['ordres de réparation (2)'] });
  });

  it('says the fallback for what the user cannot fix, never the internal message', () => {
    const throttled = new DomainError('too-many-requests', 'too-many-requests', 'rate limit hit', { retryAfter: 60 });
    expect(formFailureOf(throttled, { fallback: "Erreur lors de la mise à jour de l'OR" }).formError).toBe("Erreur lors de la mise à jour de l'OR");
    expect(formFailureOf(throttled).formError).toBe('Une erreur est survenue');
  });

  it("shows the file store's refusal beside the file field", () => {
    const failure = formFailureOf(new DomainError('too-large', 'too-large', 'Fichier trop volumineux : 20 Mo au plus'), { fileField: 'file' });
    expect(failure).toMatchObject({ errors: { file: 'Fichier trop volumineux : 20 Mo au plus' }, formError: null, code: 'storage' });
  });

  it("says a service's refusal, called in process, as the API says it", () => {
    // A field at fault beside its field; one the form does not show, above it (decision 065).
    const missing = invalid({ 'object.description': 'Décrivez ce nouveau code', 'object.action': 'Cet item ne fait pas partie de la base de donnée' });
    expect(formFailureOf(missing, { fields: ['code', 'description'] })).toMatchObject({
      errors: { description: 'Décrivez ce nouveau code' },
      formError: 'Cet item ne fait pas partie de la base de donnée',
      code: 'validation',
    });
    expect(formFailureOf(conflict('closed', 'Cet ordre de réparation est clôturé.'))).toMatchObject({
      errors: {},
      formError: 'Cet ordre de réparation est clôturé.',
      reason: 'closed',
    });
    // A record gone reads as it did through the API.
    expect(formFailureOf(notFound('Mesure introuvable')).formError).toBe('Élément introuvable');
  });

  it('lets any other error through: a bug is not a message', () => {
    expect(() => formFailureOf(new TypeError('boom'))).toThrow('boom');
  });
});
