// Files of a dossier (SPEC §3 documents, outage files, measure files, reference curves): a file
// uploaded through the storage API, then linked here with its category, title and comment.
import { documentCategories, documentSchema, type DocumentCategory } from '#lib/gearboxes/documents.ts';
import type { GearboxDocumentsService } from '#server/gearboxes/documents.ts';
import { builder } from './builder.ts';
import { GearboxModel, OutageType } from './gearboxes.ts';
import { parse } from './inputs.ts';
import { Measure } from './measures.ts';

type DocumentRow = NonNullable<Awaited<ReturnType<GearboxDocumentsService['get']>>>;

// GraphQL names cannot hold dashes: gearbox_technical_drawing stands for gearbox-technical-drawing.
const Category = builder.enumType('document_category', {
  values: Object.fromEntries(documentCategories.map((value) => [value.replace(/-/g, '_'), { value }])) as Record<string, { value: DocumentCategory }>,
});

const StoredFile = builder.objectRef<DocumentRow['file']>('stored_files').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    name: t.exposeString('name'),
    mimeType: t.exposeString('mimeType'),
    size: t.exposeInt('size'),
    bucketId: t.exposeString('bucketId'),
  }),
});

const Document = builder.objectRef<DocumentRow>('gearbox_documents').implement({
  fields: (t) => ({
    id: t.expose('id', { type: 'uuid' }),
    gearboxModelId: t.expose('modelId', { type: 'uuid' }),
    outageId: t.expose('outageId', { type: 'uuid', nullable: true }),
    measureId: t.expose('measureId', { type: 'uuid', nullable: true }),
    category: t.field({ type: Category, resolve: (row) => row.category as DocumentCategory }),
    title: t.exposeString('title'),
    comment: t.exposeString('comment'),
    createdAt: t.expose('createdAt', { type: 'timestamptz' }),
    file: t.field({ type: StoredFile, resolve: (row) => row.file }),
  }),
});

builder.objectField(GearboxModel, 'documents', (t) =>
  t.field({ type: [Document], resolve: (row, _args, context) => context.services.gearboxDocuments.ofModel(row.id) }),
);
builder.objectField(OutageType, 'files', (t) =>
  t.field({ type: [Document], resolve: (row, _args, context) => context.services.gearboxDocuments.ofOutage(row.id) }),
);
builder.objectField(Measure, 'files', (t) =>
  t.field({ type: [Document], resolve: (row, _args, context) => context.services.gearboxDocuments.ofMeasure(row.id) }),
);

const DocumentInput = builder.inputType('gearbox_documents_input', {
  fields: (t) => ({
    gearboxModelId: t.field({ type: 'uuid', required: true }),
    outageId: t.field({ type: 'uuid' }),
    measureId: t.field({ type: 'uuid' }),
    fileId: t.field({ type: 'uuid', required: true }),
    category: t.field({ type: Category, required: true }),
    title: t.string(),
    comment: t.string(),
  }),
});

builder.mutationField('insertGearboxDocument', (t) =>
  t.field({
    type: 'uuid',
    args: { object: t.arg({ type: DocumentInput, required: true }) },
    resolve: (_root, { object }, context) =>
      context.services.gearboxDocuments.insert(
        { modelId: object.gearboxModelId, outageId: object.outageId, measureId: object.measureId },
        object.fileId,
        parse(documentSchema, { category: object.category, title: object.title, comment: object.comment }, 'object'),
      ),
  }),
);

builder.mutationField('updateGearboxDocument', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }), title: t.arg.string({ required: true }), comment: t.arg.string({ required: true }) },
    resolve: (_root, args, context) => {
      const update = context.services.gearboxDocuments.update;
      const { title, comment } = parse(documentSchema.pick({ title: true, comment: true }), { title: args.title, comment: args.comment }, 'object');
      return update(args.id, { title, comment });
    },
  }),
);

/** The link and the stored file go together. */
builder.mutationField('deleteGearboxDocument', (t) =>
  t.field({
    type: 'uuid',
    args: { id: t.arg({ type: 'uuid', required: true }) },
    resolve: async (_root, { id }, context) => (await context.services.gearboxDocuments.remove(id)).id,
  }),
);
