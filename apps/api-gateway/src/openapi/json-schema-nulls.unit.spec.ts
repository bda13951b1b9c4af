import type { OpenAPIObject } from '@nestjs/swagger';
import { withJsonSchemaNulls } from './json-schema-nulls';

const schemaOf = (schema: object): unknown => {
  const document = { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {}, components: { schemas: { S: schema } } } as unknown as OpenAPIObject;
  return withJsonSchemaNulls(document).components?.schemas?.['S'];
};

describe('withJsonSchemaNulls', () => {
  it('turns a nullable type into a type that admits null', () => {
    expect(schemaOf({ type: 'string', nullable: true, maxLength: 50 })).toEqual({ type: ['string', 'null'], maxLength: 50 });
  });

  it('adds null to the values of a nullable enum', () => {
    expect(schemaOf({ type: 'string', enum: ['AUTO', 'GSM7'], nullable: true })).toEqual({ type: ['string', 'null'], enum: ['AUTO', 'GSM7', null] });
  });

  it('offers null beside a nullable reference, without the object type that would refuse it', () => {
    expect(schemaOf({ type: 'object', nullable: true, description: 'd', allOf: [{ $ref: '#/components/schemas/T' }] })).toEqual({
      description: 'd',
      anyOf: [{ $ref: '#/components/schemas/T' }, { type: 'null' }],
    });
  });

  it('rewrites nested schemas and leaves the others alone', () => {
    expect(schemaOf({ type: 'object', properties: { a: { type: 'integer', nullable: true }, b: { type: 'integer' } } })).toEqual({
      type: 'object',
      properties: { a: { type: ['integer', 'null'] }, b: { type: 'integer' } },
    });
  });
});
