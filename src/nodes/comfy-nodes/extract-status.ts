/**
 * A version's `app_node_extract_status` (the public registry's values): `pending` from the moment its archive
 * is stored until its node classes are extracted, then the outcome (docs/api-rules.md §9.3).
 */
export const EXTRACT_PENDING = 'pending';

export const APP_NODE_EXTRACT_OUTCOMES = ['success', 'failed'] as const;
export type AppNodeExtractOutcome = (typeof APP_NODE_EXTRACT_OUTCOMES)[number];
