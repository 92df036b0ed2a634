import path from 'node:path';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import { OBSERVATION_LOG_REPLY_SCHEMA } from '../../../services/experiment/dbmanager/adapters/observation-log-encoding.ts';
import { REPORT_REQUEST_SCHEMA } from '../../../services/experiment/dbmanager/adapters/report-request.ts';
import { SUGGESTIONS_REQUEST_SCHEMA } from '../../../services/experiment/suggestion/adapters/suggestions-request-schema.ts';
import {
  RATE_LIMIT_REQUEST_SCHEMA,
  RATE_LIMIT_RESPONSE_SCHEMA,
} from '../../../services/ratelimit/adapters/grpc/rls-codec.ts';
import { PROTO_ROOT } from '../../../shared/grpc.ts';
import {
  requireOneByteTags,
  type SchemaDeclaration,
  sharedFieldNumbers,
} from '../../../shared/protobuf/schema.ts';
import { HEALTH_PROTO, HEALTH_SCHEMA } from '../../../shared/rpc/health.ts';

// Every hand-written protobuf reader and writer declares the fields it reads or writes; each
// declaration must say what the .proto files in proto/ say: number, type, repeated or not.
const DECLARATIONS: Record<string, { readonly file: string; readonly schema: SchemaDeclaration }> = {
  'ReportObservationLogRequest reader (report-request.ts)': {
    file: 'api/v1beta1/api.proto',
    schema: REPORT_REQUEST_SCHEMA,
  },
  'GetObservationLogReply writer (observation-log-encoding.ts)': {
    file: 'api/v1beta1/api.proto',
    schema: OBSERVATION_LOG_REPLY_SCHEMA,
  },
  'GetSuggestionsRequest reader (suggestions-request*.ts)': {
    file: 'api/v1beta1/api.proto',
    schema: SUGGESTIONS_REQUEST_SCHEMA,
  },
  'RateLimitRequest reader (rls-codec.ts)': {
    file: 'envoy/service/ratelimit/v3/rls.proto',
    schema: RATE_LIMIT_REQUEST_SCHEMA,
  },
  'RateLimitResponse writer (rls-codec.ts)': {
    file: 'envoy/service/ratelimit/v3/rls.proto',
    schema: RATE_LIMIT_RESPONSE_SCHEMA,
  },
  'HealthCheckRequest reader and HealthCheckResponse writer (shared/rpc/health.ts)': {
    file: HEALTH_PROTO,
    schema: HEALTH_SCHEMA,
  },
};

function load(file: string): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_, target) => path.resolve(PROTO_ROOT, target);
  root.loadSync(file, { keepCase: true });
  root.resolveAll();
  return root;
}

/** A field as its declaration would state it (a map as `map<key type, value type>`). */
function stated(field: protobuf.Field): string {
  const type = field.resolvedType ? field.resolvedType.fullName.slice(1) : field.type;
  if (field instanceof protobuf.MapField) return `${field.id} map<${field.keyType}, ${type}>`;
  return `${field.id} ${field.repeated ? 'repeated ' : ''}${type}`;
}

/**
 * A message's field by its .proto name. protobufjs's own copies of google/protobuf/*.proto (which
 * it uses for the imports of those) name their fields in camelCase, keepCase or not.
 */
const fieldNamed = (message: protobuf.Type, name: string): protobuf.Field | undefined =>
  message.fields[name] ?? message.fields[protobuf.util.camelCase(name)];

describe('the hand-written protobuf codecs against proto/', () => {
  for (const [codec, { file, schema }] of Object.entries(DECLARATIONS))
    it(`${codec}: every declared field as ${file} declares it`, () => {
      const root = load(file);
      const declared: Record<string, string> = {};
      const actual: Record<string, string> = {};
      for (const [messageName, fields] of Object.entries(schema)) {
        const message = root.lookupType(messageName);
        for (const [name, [number, type]] of Object.entries(fields)) {
          declared[`${messageName}.${name}`] = `${number} ${type}`;
          const field = fieldNamed(message, name);
          actual[`${messageName}.${name}`] = field ? stated(field) : 'no such field';
        }
      }
      expect(Object.keys(declared).length).toBeGreaterThan(0);
      expect(declared).toEqual(actual);
    });

  it('notices a wrong number or type', () => {
    const root = load('api/v1beta1/api.proto');
    const metric = root.lookupType('api.v1.beta1.Metric');
    expect(stated(metric.fields.name!)).toBe('1 string');
    expect(stated(root.lookupType('api.v1.beta1.ObservationLog').fields.metric_logs!)).toBe(
      '1 repeated api.v1.beta1.MetricLog',
    );
    expect(stated(metric.fields.value!)).not.toBe('1 string');
    expect(stated(root.lookupType('api.v1.beta1.TrialSpec').fields.labels!)).toBe('4 map<string, string>');
    const value = load('envoy/service/ratelimit/v3/rls.proto').lookupType('google.protobuf.Value');
    expect(stated(fieldNamed(value, 'null_value')!)).toBe('1 google.protobuf.NullValue');
  });

  it('reads messages as one layout only when their fields agree', () => {
    const schema = {
      'x.Setting': { name: [1, 'string'], value: [2, 'string'] },
      'x.Other': { name: [1, 'string'], value: [2, 'string'] },
      'x.Shifted': { name: [1, 'string'], value: [3, 'string'] },
      'x.Spec': { settings: [2, 'repeated x.Setting'] },
      'x.OtherSpec': { settings: [2, 'repeated x.Other'] },
    } as const satisfies SchemaDeclaration;
    expect(sharedFieldNumbers(schema, 'x.Setting', 'x.Other')).toEqual({ name: 1, value: 2 });
    expect(sharedFieldNumbers(schema, 'x.Spec', 'x.OtherSpec')).toEqual({ settings: 2 });
    expect(() => sharedFieldNumbers(schema, 'x.Setting', 'x.Shifted')).toThrow(
      'x.Setting and x.Shifted are read as one layout, but their fields differ',
    );
  });

  it('refuses a field number past 15 to a writer that writes one-byte tags', () => {
    expect(() => requireOneByteTags({ 'x.M': { a: [15, 'string'] } })).not.toThrow();
    expect(() => requireOneByteTags({ 'x.M': { a: [16, 'string'] } })).toThrow(
      'x.M.a: its tag takes more than one byte',
    );
  });
});
