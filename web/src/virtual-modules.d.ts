declare module 'virtual:spec-validators' {
  import type { ValidateFunction } from 'ajv';
  /** One validator per name in VALIDATED_SCHEMAS (src/api/validated-schemas.ts). */
  const validators: Record<string, ValidateFunction | undefined>;
  export default validators;
}
