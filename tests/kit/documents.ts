// The mutations more than one test file (or script) sends, written once, typed from the schema.
// Their variables keep the names the tests use: $o an order (or the object), $m a model, $id the row.
import { graphql } from '#lib/graphql.ts';

export const M = {
  insertGearboxModel: graphql(`mutation($o: gearbox_models_input!) { insertGearboxModel(object: $o) { id model startYear endYear gears parentId } }`),
  updateGearboxModel: graphql(`mutation($id: uuid!, $o: gearbox_models_input!) { updateGearboxModel(id: $id, object: $o) { id endYear parentId } }`),
  deleteGearboxModel: graphql(`mutation($id: uuid!) { deleteGearboxModel(id: $id) { id model } }`),
  insertOutage: graphql(`mutation($m: uuid!, $o: outages_input!) { insertOutage(gearboxModelId: $m, object: $o) }`),
  deleteOutage: graphql(`mutation($id: uuid!) { deleteOutage(id: $id) }`),
  setOutageProcedures: graphql(`mutation($o: uuid!, $p: [uuid!]!) { setOutageProcedures(outageId: $o, procedureIds: $p) }`),
  insertRepairProcedure: graphql(`mutation($m: uuid!, $o: repair_procedures_input!) { insertRepairProcedure(gearboxModelId: $m, object: $o) }`),
  updateRepairProcedure: graphql(`mutation($id: uuid!, $o: repair_procedures_input!) { updateRepairProcedure(id: $id, object: $o) }`),
  deleteRepairProcedure: graphql(`mutation($id: uuid!) { deleteRepairProcedure(id: $id) }`),
  insertGearboxMeasure: graphql(`
    mutation($m: uuid!, $o: gearbox_measures_input!) { insertGearboxMeasure(gearboxModelId: $m, object: $o) { id name unit minimum maximum } }
  `),
  insertErrorCode: graphql(`mutation($m: uuid!, $o: error_codes_input!) { insertErrorCode(gearboxModelId: $m, object: $o) { id code } }`),
  deleteErrorCode: graphql(`mutation($id: uuid!) { deleteErrorCode(id: $id) }`),
  insertDoctorCode: graphql(`mutation($m: uuid!, $o: doctor_codes_input!) { insertDoctorCode(gearboxModelId: $m, object: $o) { id code } }`),
  deleteDoctorCode: graphql(`mutation($id: uuid!) { deleteDoctorCode(id: $id) }`),
  insertGearboxCode: graphql(`mutation($d: uuid!, $c: String!) { insertGearboxCode(doctorCodeId: $d, code: $c) { id } }`),
  deleteGearboxCode: graphql(`mutation($id: uuid!) { deleteGearboxCode(id: $id) }`),
  insertGearboxDocument: graphql(`mutation($o: gearbox_documents_input!) { insertGearboxDocument(object: $o) }`),

  insertRepairOrder: graphql(`mutation($o: repair_orders_input!) { insertRepairOrder(object: $o) }`),
  updateRepairOrder: graphql(`mutation($id: uuid!, $o: repair_orders_input!) { updateRepairOrder(id: $id, object: $o) }`),
  deleteRepairOrder: graphql(`mutation($id: uuid!) { deleteRepairOrder(id: $id) }`),
  chooseOrderOutages: graphql(`mutation($o: uuid!, $ids: [uuid!]!) { chooseOrderOutages(repairOrderId: $o, outageIds: $ids) }`),
  chooseOrderProcedures: graphql(`mutation($o: uuid!, $p: [order_procedures_input!]!) { chooseOrderProcedures(repairOrderId: $o, procedures: $p) }`),
  markProceduresVisualised: graphql(`mutation($o: uuid!) { markProceduresVisualised(repairOrderId: $o) }`),
  reopenDiagnostic: graphql(`mutation($o: uuid!) { reopenDiagnostic(repairOrderId: $o) }`),
  setFaultCodeReading: graphql(`mutation($o: uuid!, $c: Boolean!) { setFaultCodeReading(repairOrderId: $o, canRead: $c) { discarded } }`),
  insertOrderFaultCode: graphql(`mutation($o: uuid!, $c: order_fault_codes_input!) { insertOrderFaultCode(repairOrderId: $o, object: $c) }`),
  insertOrderSymptom: graphql(`mutation($o: uuid!, $s: order_symptoms_input!) { insertOrderSymptom(repairOrderId: $o, object: $s) }`),
  setMeasuresDone: graphql(`mutation($o: uuid!, $d: Boolean!) { setMeasuresDone(repairOrderId: $o, done: $d) { discarded files } }`),
  insertOrderMeasure: graphql(`mutation($o: uuid!, $m: order_measures_input!) { insertOrderMeasure(repairOrderId: $o, object: $m) }`),
  updateOrderMeasure: graphql(`mutation($id: uuid!, $m: order_measures_input!) { updateOrderMeasure(id: $id, object: $m) }`),
  validateDiagnostic: graphql(`mutation($o: uuid!) { validateDiagnostic(repairOrderId: $o) }`),
  insertOrderCurve: graphql(`mutation($o: uuid!, $c: order_curves_input!) { insertOrderCurve(repairOrderId: $o, object: $c) }`),
  insertOrderFile: graphql(`mutation($o: uuid!, $f: order_files_input!) { insertOrderFile(repairOrderId: $o, object: $f) }`),
  answerOrderCheckpoint: graphql(`
    mutation($id: uuid!, $v: Int!, $o: order_checkpoints_input!) {
      answerOrderCheckpoint(id: $id, version: $v, object: $o) { checkResult measuredValue comment answeredByName version }
    }
  `),
  closeRepairOrder: graphql(`mutation($id: uuid!, $c: String) { closeRepairOrder(id: $id, comment: $c) }`),
  reopenRepairOrder: graphql(`mutation($id: uuid!, $c: String) { reopenRepairOrder(id: $id, comment: $c) }`),

  insertStockItems: graphql(`mutation($o: stock_items_insert_input!) { insertStockItems(object: $o) }`),
  moveStockItem: graphql(`mutation($id: uuid!, $v: Int!, $r: String!, $l: Int!) { moveStockItem(id: $id, version: $v, rack: $r, level: $l) }`),
  removeStockItem: graphql(`
    mutation($id: uuid!, $v: Int!, $d: String!, $r: String!) { removeStockItem(id: $id, version: $v, outOn: $d, outReason: $r) }
  `),

  insertBaseItem: graphql(`mutation($k: base_kind!, $n: String!) { insertBaseItem(kind: $k, name: $n) { id name } }`),
  updateBaseItem: graphql(`mutation($id: uuid!, $n: String!) { updateBaseItem(id: $id, name: $n) { id } }`),
  deleteBaseItem: graphql(`mutation($id: uuid!) { deleteBaseItem(id: $id) { id name } }`),

  insertUser: graphql(`mutation($o: users_insert_input!) { insertUser(object: $o) { id } }`),
  updateUser: graphql(`mutation($id: uuid!, $s: users_set_input!) { updateUser(pk_columns: { id: $id }, _set: $s) { id } }`),
  deleteUser: graphql(`mutation($id: uuid!) { deleteUser(id: $id) { id } }`),
};

/** What the builders read back. */
export const Q = {
  orderCheckpoints: graphql(`query($id: uuid!) { repairOrder(id: $id) { procedures { checkpoints { id name comment version } } } }`),
};
