/** Problem errors the domain raises; the platform renders them as application/problem+json. */
import { ProblemError } from '../http/types.js';

export interface ValidationItem {
  field: string;
  code: string;
  message?: string;
}

export const notFound = (what: string, id: string): ProblemError =>
  new ProblemError(404, 'not_found', `${what} ${id} was not found`);
export const conflict = (detail: string, errors?: ValidationItem[]): ProblemError =>
  new ProblemError(409, 'conflict', detail, errors ? { errors } : {});
export const invalid = (errors: ValidationItem[], detail = 'The request is not valid.'): ProblemError =>
  new ProblemError(422, 'validation_error', detail, { errors });
export const invalidField = (field: string, code: string, message: string): ProblemError =>
  invalid([{ field, code, message }], message);
