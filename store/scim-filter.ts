import type { Knex } from 'knex';
import { parse, type Filter } from 'scim2-parse-filter';

/** A SCIM filter gw cannot run: the handler answers 400 with scimType invalidFilter. */
export class ScimFilterError extends Error {}

/** How one SCIM attribute maps to the store: a column, or a custom condition for multi-valued ones. */
export type ScimAttribute =
  | { column: string; type: 'string' | 'datetime' }
  | { type: 'boolean'; apply: (q: Knex.QueryBuilder, value: boolean, negate: boolean) => void }
  | { type: 'subquery'; apply: (q: Knex.QueryBuilder, op: string, value: string) => void };

/**
 * Turns a SCIM filter (RFC 7644 section 3.4.2.2, parsed by scim2-parse-filter) into knex
 * conditions over the attributes a resource maps. Strings compare case-insensitively (SCIM's
 * default caseExact false) the same way on SQLite and Postgres: lower() on both sides.
 */
export function applyScimFilter(query: Knex.QueryBuilder, filter: string, attributes: Record<string, ScimAttribute>): void {
  let ast: Filter;
  try {
    ast = parse(filter);
  } catch (error) {
    throw new ScimFilterError(`The filter could not be parsed: ${(error as Error).message}`);
  }
  query.where((q) => apply(q, ast, attributes));
}

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

function attribute(attributes: Record<string, ScimAttribute>, path: string): ScimAttribute {
  // Attribute names are case-insensitive; a schema URN prefix (urn:...:User:userName) names the same attribute.
  const name = path.replace(/^urn:[^ ]*:/i, '').toLowerCase();
  const found = attributes[name];
  if (!found) throw new ScimFilterError(`Filtering on ${path} is not supported`);
  return found;
}

function apply(q: Knex.QueryBuilder, filter: Filter, attributes: Record<string, ScimAttribute>): void {
  switch (filter.op) {
    case 'and':
    case 'or':
      for (const [index, inner] of filter.filters.entries()) {
        const method = index === 0 || filter.op === 'and' ? 'where' : 'orWhere';
        q[method]((sub: Knex.QueryBuilder) => apply(sub, inner, attributes));
      }
      return;
    case 'not':
      q.whereNot((sub) => apply(sub, filter.filter, attributes));
      return;
    case '[]': {
      // members[value eq "id"], emails[value eq "x"]: the sub-attribute of a multi-valued attribute.
      const inner = filter.valFilter;
      if (inner.op !== 'eq' || !('attrPath' in inner)) throw new ScimFilterError('Only "attr[sub eq value]" value filters are supported');
      apply(q, { ...inner, attrPath: `${filter.attrPath}.${inner.attrPath}` }, attributes);
      return;
    }
    case 'pr': {
      const target = attribute(attributes, filter.attrPath);
      if ('column' in target) q.whereNotNull(target.column).andWhere(target.column, '<>', '');
      else if (target.type === 'boolean') q.whereRaw('1 = 1');
      else throw new ScimFilterError(`"pr" is not supported on ${filter.attrPath}`);
      return;
    }
    default: {
      const target = attribute(attributes, filter.attrPath);
      const value = filter.compValue;
      if (target.type === 'boolean') {
        if (typeof value !== 'boolean' || (filter.op !== 'eq' && filter.op !== 'ne')) throw new ScimFilterError(`${filter.attrPath} compares with eq or ne and true or false`);
        target.apply(q, value, filter.op === 'ne');
        return;
      }
      if (typeof value !== 'string') throw new ScimFilterError(`${filter.attrPath} compares with a string`);
      if (target.type === 'subquery') {
        target.apply(q, filter.op, value);
        return;
      }
      if (target.type === 'datetime' && Number.isNaN(Date.parse(value))) throw new ScimFilterError(`${filter.attrPath} compares with a date-time`);
      compare(q, target.column, filter.op, target.type === 'datetime' ? new Date(value).toISOString() : value, target.type === 'string');
    }
  }
}

const OPERATORS: Record<string, string> = { eq: '=', ne: '<>', gt: '>', ge: '>=', lt: '<', le: '<=' };

function compare(q: Knex.QueryBuilder, column: string, op: string, value: string, caseless: boolean): void {
  const col = caseless ? 'lower(??)' : '??';
  const text = caseless ? value.toLowerCase() : value;
  const pattern = op === 'co' ? `%${escapeLike(text)}%` : op === 'sw' ? `${escapeLike(text)}%` : op === 'ew' ? `%${escapeLike(text)}` : undefined;
  if (pattern !== undefined) {
    q.whereRaw(`${col} like ? escape '\\'`, [column, pattern]);
    return;
  }
  const operator = OPERATORS[op];
  if (!operator) throw new ScimFilterError(`Unknown operator ${op}`);
  q.whereRaw(`${col} ${operator} ?`, [column, text]);
}
