// The api.v1.beta1 proto against the reference tables (Katib v1beta1 api.proto): method paths,
// every message's field names, numbers and types, enum values, and bytes on the wire.
import path from 'node:path';
import type { GrpcObject, MethodDefinition } from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { describe, expect, it } from 'vitest';
import type { ReportObservationLogRequest } from '../../../proto/gen/api/v1/beta1/ReportObservationLogRequest.ts';
import type { ProtoGrpcType as ApiGrpcType } from '../../../proto/gen/api.ts';
import type { ProtoGrpcType as HealthGrpcType } from '../../../proto/gen/health.ts';
import { loadPackageDefinition, lookupService, PROTO_ROOT } from '../../../shared/grpc.ts';

const PACKAGE = 'api.v1.beta1';

/** [message, field, number, type]; types name messages and enums relative to the package. */
type FieldRow = readonly [message: string, field: string, number: number, type: string];

const FIELDS: readonly FieldRow[] = [
  ['Experiment', 'name', 1, 'string'],
  ['Experiment', 'spec', 2, 'ExperimentSpec'],
  ['ExperimentSpec', 'parameter_specs', 1, 'ExperimentSpec.ParameterSpecs'],
  ['ExperimentSpec', 'objective', 2, 'ObjectiveSpec'],
  ['ExperimentSpec', 'algorithm', 3, 'AlgorithmSpec'],
  ['ExperimentSpec', 'early_stopping', 4, 'EarlyStoppingSpec'],
  ['ExperimentSpec', 'parallel_trial_count', 5, 'int32'],
  ['ExperimentSpec', 'max_trial_count', 6, 'int32'],
  ['ExperimentSpec', 'nas_config', 7, 'NasConfig'],
  ['ExperimentSpec.ParameterSpecs', 'parameters', 1, 'repeated ParameterSpec'],
  ['ParameterSpec', 'name', 1, 'string'],
  ['ParameterSpec', 'parameter_type', 2, 'ParameterType'],
  ['ParameterSpec', 'feasible_space', 3, 'FeasibleSpace'],
  ['FeasibleSpace', 'max', 1, 'string'],
  ['FeasibleSpace', 'min', 2, 'string'],
  ['FeasibleSpace', 'list', 3, 'repeated string'],
  ['FeasibleSpace', 'step', 4, 'string'],
  ['FeasibleSpace', 'distribution', 5, 'Distribution'],
  ['ObjectiveSpec', 'type', 1, 'ObjectiveType'],
  ['ObjectiveSpec', 'goal', 2, 'double'],
  ['ObjectiveSpec', 'objective_metric_name', 3, 'string'],
  ['ObjectiveSpec', 'additional_metric_names', 4, 'repeated string'],
  ['AlgorithmSpec', 'algorithm_name', 1, 'string'],
  ['AlgorithmSpec', 'algorithm_settings', 2, 'repeated AlgorithmSetting'],
  ['AlgorithmSetting', 'name', 1, 'string'],
  ['AlgorithmSetting', 'value', 2, 'string'],
  ['EarlyStoppingSpec', 'algorithm_name', 1, 'string'],
  ['EarlyStoppingSpec', 'algorithm_settings', 2, 'repeated EarlyStoppingSetting'],
  ['EarlyStoppingSetting', 'name', 1, 'string'],
  ['EarlyStoppingSetting', 'value', 2, 'string'],
  ['NasConfig', 'graph_config', 1, 'GraphConfig'],
  ['NasConfig', 'operations', 2, 'NasConfig.Operations'],
  ['NasConfig.Operations', 'operation', 1, 'repeated Operation'],
  ['GraphConfig', 'num_layers', 1, 'int32'],
  ['GraphConfig', 'input_sizes', 2, 'repeated int32'],
  ['GraphConfig', 'output_sizes', 3, 'repeated int32'],
  ['Operation', 'operation_type', 1, 'string'],
  ['Operation', 'parameter_specs', 2, 'Operation.ParameterSpecs'],
  ['Operation.ParameterSpecs', 'parameters', 1, 'repeated ParameterSpec'],
  ['Trial', 'name', 1, 'string'],
  ['Trial', 'spec', 2, 'TrialSpec'],
  ['Trial', 'status', 3, 'TrialStatus'],
  ['TrialSpec', 'objective', 2, 'ObjectiveSpec'],
  ['TrialSpec', 'parameter_assignments', 3, 'TrialSpec.ParameterAssignments'],
  ['TrialSpec', 'labels', 4, 'map<string,string>'],
  ['TrialSpec.ParameterAssignments', 'assignments', 1, 'repeated ParameterAssignment'],
  ['ParameterAssignment', 'name', 1, 'string'],
  ['ParameterAssignment', 'value', 2, 'string'],
  ['TrialStatus', 'start_time', 1, 'string'],
  ['TrialStatus', 'completion_time', 2, 'string'],
  ['TrialStatus', 'condition', 3, 'TrialStatus.TrialConditionType'],
  ['TrialStatus', 'observation', 4, 'Observation'],
  ['Observation', 'metrics', 1, 'repeated Metric'],
  ['Metric', 'name', 1, 'string'],
  ['Metric', 'value', 2, 'string'],
  ['ReportObservationLogRequest', 'trial_name', 1, 'string'],
  ['ReportObservationLogRequest', 'observation_log', 2, 'ObservationLog'],
  ['ObservationLog', 'metric_logs', 1, 'repeated MetricLog'],
  ['MetricLog', 'time_stamp', 1, 'string'],
  ['MetricLog', 'metric', 2, 'Metric'],
  ['GetObservationLogRequest', 'trial_name', 1, 'string'],
  ['GetObservationLogRequest', 'metric_name', 2, 'string'],
  ['GetObservationLogRequest', 'start_time', 3, 'string'],
  ['GetObservationLogRequest', 'end_time', 4, 'string'],
  ['GetObservationLogReply', 'observation_log', 1, 'ObservationLog'],
  ['DeleteObservationLogRequest', 'trial_name', 1, 'string'],
  ['GetSuggestionsRequest', 'experiment', 1, 'Experiment'],
  ['GetSuggestionsRequest', 'trials', 2, 'repeated Trial'],
  ['GetSuggestionsRequest', 'current_request_number', 4, 'int32'],
  ['GetSuggestionsRequest', 'total_request_number', 5, 'int32'],
  ['GetSuggestionsReply', 'parameter_assignments', 1, 'repeated GetSuggestionsReply.ParameterAssignments'],
  ['GetSuggestionsReply', 'algorithm', 2, 'AlgorithmSpec'],
  ['GetSuggestionsReply', 'early_stopping_rules', 3, 'repeated EarlyStoppingRule'],
  ['GetSuggestionsReply.ParameterAssignments', 'assignments', 1, 'repeated ParameterAssignment'],
  ['GetSuggestionsReply.ParameterAssignments', 'trial_name', 2, 'string'],
  ['GetSuggestionsReply.ParameterAssignments', 'labels', 3, 'map<string,string>'],
  ['ValidateAlgorithmSettingsRequest', 'experiment', 1, 'Experiment'],
  ['GetEarlyStoppingRulesRequest', 'experiment', 1, 'Experiment'],
  ['GetEarlyStoppingRulesRequest', 'trials', 2, 'repeated Trial'],
  ['GetEarlyStoppingRulesRequest', 'db_manager_address', 3, 'string'],
  ['GetEarlyStoppingRulesReply', 'early_stopping_rules', 1, 'repeated EarlyStoppingRule'],
  ['EarlyStoppingRule', 'name', 1, 'string'],
  ['EarlyStoppingRule', 'value', 2, 'string'],
  ['EarlyStoppingRule', 'comparison', 3, 'ComparisonType'],
  ['EarlyStoppingRule', 'start_step', 4, 'int32'],
  ['ValidateEarlyStoppingSettingsRequest', 'early_stopping', 1, 'EarlyStoppingSpec'],
  ['SetTrialStatusRequest', 'trial_name', 1, 'string'],
];

/** Messages without fields. */
const EMPTY_MESSAGES = [
  'ReportObservationLogReply',
  'DeleteObservationLogReply',
  'ValidateAlgorithmSettingsReply',
  'ValidateEarlyStoppingSettingsReply',
  'SetTrialStatusReply',
];

const MESSAGES = [...new Set([...FIELDS.map(([message]) => message), ...EMPTY_MESSAGES])];

const ENUMS: Readonly<Record<string, readonly (readonly [string, number])[]>> = {
  ParameterType: [
    ['UNKNOWN_TYPE', 0],
    ['DOUBLE', 1],
    ['INT', 2],
    ['DISCRETE', 3],
    ['CATEGORICAL', 4],
  ],
  Distribution: [
    ['DISTRIBUTION_UNSPECIFIED', 0],
    ['UNIFORM', 1],
    ['LOG_UNIFORM', 2],
    ['NORMAL', 3],
    ['LOG_NORMAL', 4],
  ],
  ObjectiveType: [
    ['UNKNOWN', 0],
    ['MINIMIZE', 1],
    ['MAXIMIZE', 2],
  ],
  ComparisonType: [
    ['UNKNOWN_COMPARISON', 0],
    ['EQUAL', 1],
    ['LESS', 2],
    ['GREATER', 3],
  ],
  'TrialStatus.TrialConditionType': [
    ['CREATED', 0],
    ['RUNNING', 1],
    ['SUCCEEDED', 2],
    ['KILLED', 3],
    ['FAILED', 4],
    ['METRICSUNAVAILABLE', 5],
    ['EARLYSTOPPED', 6],
    ['UNKNOWN', 7],
  ],
};

/** [service, method, request, reply], all unary. */
const METHODS = [
  ['DBManager', 'ReportObservationLog', 'ReportObservationLogRequest', 'ReportObservationLogReply'],
  ['DBManager', 'GetObservationLog', 'GetObservationLogRequest', 'GetObservationLogReply'],
  ['DBManager', 'DeleteObservationLog', 'DeleteObservationLogRequest', 'DeleteObservationLogReply'],
  ['Suggestion', 'GetSuggestions', 'GetSuggestionsRequest', 'GetSuggestionsReply'],
  [
    'Suggestion',
    'ValidateAlgorithmSettings',
    'ValidateAlgorithmSettingsRequest',
    'ValidateAlgorithmSettingsReply',
  ],
  ['EarlyStopping', 'GetEarlyStoppingRules', 'GetEarlyStoppingRulesRequest', 'GetEarlyStoppingRulesReply'],
  ['EarlyStopping', 'SetTrialStatus', 'SetTrialStatusRequest', 'SetTrialStatusReply'],
  [
    'EarlyStopping',
    'ValidateEarlyStoppingSettings',
    'ValidateEarlyStoppingSettingsRequest',
    'ValidateEarlyStoppingSettingsReply',
  ],
] as const;

// ---- descriptors as grpc-js gets them (shared/grpc.ts loadPackageDefinition) ----

interface FieldDescriptor {
  name: string;
  number: number;
  label: string;
  type: string;
  typeName: string;
}
interface MessageDescriptor {
  name: string;
  field: FieldDescriptor[];
  nestedType: MessageDescriptor[];
  enumType: EnumDescriptor[];
  reservedRange: { start: number; end: number }[];
  options: { mapEntry?: boolean } | null;
}
interface EnumDescriptor {
  name: string;
  value: { name: string; number: number }[];
}

interface LoadedTypes {
  requestType: { type: MessageDescriptor };
  responseType: { type: MessageDescriptor };
}

const loaded = loadPackageDefinition(['api/v1beta1/api.proto']);
const api = (loaded as unknown as ApiGrpcType).api.v1.beta1;
const apiPackage = (loaded as { api: { v1: { beta1: GrpcObject } } }).api.v1.beta1;

function entriesOfFormat(format: string): [string, unknown][] {
  return Object.entries(apiPackage)
    .filter(([, value]) => (value as { format?: string }).format === format)
    .map(([name, value]) => [name, (value as { type: unknown }).type]);
}

/** Top-level descriptors and their nested messages, keyed by package-relative name. */
function messageDescriptors(): Map<string, MessageDescriptor> {
  const byName = new Map<string, MessageDescriptor>();
  const visit = (prefix: string, message: MessageDescriptor) => {
    if (message.options?.mapEntry === true) return;
    const name = `${prefix}${message.name}`;
    byName.set(name, message);
    for (const nested of message.nestedType) visit(`${name}.`, nested);
  };
  for (const [, type] of entriesOfFormat('Protocol Buffer 3 DescriptorProto'))
    visit('', type as MessageDescriptor);
  return byName;
}

function enumDescriptors(): Map<string, EnumDescriptor> {
  const byName = new Map<string, EnumDescriptor>();
  for (const [name, type] of entriesOfFormat('Protocol Buffer 3 EnumDescriptorProto')) {
    byName.set(name, type as EnumDescriptor);
  }
  for (const [name, message] of messageDescriptors()) {
    for (const nested of message.enumType) byName.set(`${name}.${nested.name}`, nested);
  }
  return byName;
}

const SCALARS: Readonly<Record<string, string>> = {
  TYPE_STRING: 'string',
  TYPE_INT32: 'int32',
  TYPE_DOUBLE: 'double',
};
const lastSegment = (name: string): string => name.slice(name.lastIndexOf('.') + 1);

/**
 * A field's type in the table's notation; descriptors from protobufjs name message and enum types
 * by their short name only, so those are compared by their last segment.
 */
function descriptorType(message: MessageDescriptor, field: FieldDescriptor): string {
  const mapEntry = message.nestedType.find(
    (nested) => nested.options?.mapEntry === true && nested.name === lastSegment(field.typeName),
  );
  if (field.type === 'TYPE_MESSAGE' && mapEntry !== undefined) {
    const [key, value] = mapEntry.field;
    return `map<${SCALARS[key!.type]},${SCALARS[value!.type]}>`;
  }
  const base = SCALARS[field.type] ?? lastSegment(field.typeName);
  return field.label === 'LABEL_REPEATED' ? `repeated ${base}` : base;
}

function shortType(type: string): string {
  if (type.startsWith('map<')) return type;
  const repeated = type.startsWith('repeated ');
  const base = lastSegment(repeated ? type.slice('repeated '.length) : type);
  return repeated ? `repeated ${base}` : base;
}

describe('api.v1.beta1 services', () => {
  it.each(METHODS)(
    '%s.%s has its full method path, unary, with its request and reply',
    (service, method, request, reply) => {
      // proto-loader's method definitions also carry the request and reply descriptors.
      const definition = lookupService(loaded, `${PACKAGE}.${service}`).service[method] as
        | (MethodDefinition<unknown, unknown> & LoadedTypes)
        | undefined;
      expect(definition).toMatchObject({
        path: `/${PACKAGE}.${service}/${method}`,
        requestStream: false,
        responseStream: false,
      });
      expect(definition?.requestType.type.name).toBe(request);
      expect(definition?.responseType.type.name).toBe(reply);
    },
  );

  it('has exactly the three services and eight methods of the reference', () => {
    const services = Object.entries(apiPackage).filter(([, value]) => typeof value === 'function');
    expect(services.map(([name]) => name).sort()).toEqual(['DBManager', 'EarlyStopping', 'Suggestion']);
    const paths = services.flatMap(([name]) =>
      Object.values(lookupService(loaded, `${PACKAGE}.${name}`).service).map((method) => method.path),
    );
    expect(paths.sort()).toEqual(
      METHODS.map(([service, method]) => `/${PACKAGE}.${service}/${method}`).sort(),
    );
  });
});

describe('api.v1.beta1 messages (descriptors loaded by shared/grpc.ts)', () => {
  const messages = messageDescriptors();

  it('has exactly the messages of the reference, nested ones where the reference puts them', () => {
    expect([...messages.keys()].sort()).toEqual([...MESSAGES].sort());
  });

  it.each(FIELDS)('%s.%s is number %i of type %s', (messageName, fieldName, number, type) => {
    const message = messages.get(messageName);
    const field = message?.field.find((candidate) => candidate.name === fieldName);
    expect(field?.number).toBe(number);
    expect(descriptorType(message!, field!)).toBe(shortType(type));
  });

  it.each(MESSAGES)('%s has no field beyond the reference table', (messageName) => {
    const expected = FIELDS.filter(([message]) => message === messageName).map(([, field, number]) => [
      field,
      number,
    ]);
    const actual = messages.get(messageName)?.field.map((field) => [field.name, field.number]);
    expect(actual).toEqual(expected);
  });

  it('reserves the numbers Katib retired: TrialSpec 1, GetSuggestionsRequest 3', () => {
    // protobufjs reports reserved ranges with an inclusive end.
    expect(messages.get('TrialSpec')?.reservedRange).toEqual([{ start: 1, end: 1 }]);
    expect(messages.get('GetSuggestionsRequest')?.reservedRange).toEqual([{ start: 3, end: 3 }]);
  });

  it.each(Object.entries(ENUMS))('enum %s has the reference values', (name, values) => {
    const actual = enumDescriptors()
      .get(name)
      ?.value.map((value) => [value.name, value.number]);
    expect(actual).toEqual(values);
  });

  it('has exactly the enums of the reference', () => {
    expect([...enumDescriptors().keys()].sort()).toEqual(Object.keys(ENUMS).sort());
  });
});

// ---- protobufjs reflection: fully qualified types, and bytes on the wire ----

function loadRoot(): protobuf.Root {
  const root = new protobuf.Root();
  root.resolvePath = (_origin, target) => path.resolve(PROTO_ROOT, target);
  root.loadSync('api/v1beta1/api.proto', { keepCase: true }).resolveAll();
  return root;
}

const root = loadRoot();
const typeOf = (name: string): protobuf.Type => root.lookupType(`${PACKAGE}.${name}`);
const relative = (fullName: string): string => fullName.replace(`.${PACKAGE}.`, '');

function reflectedType(field: protobuf.Field): string {
  if (field instanceof protobuf.MapField) return `map<${field.keyType},${field.type}>`;
  const base = field.resolvedType === null ? field.type : relative(field.resolvedType.fullName);
  return field.repeated ? `repeated ${base}` : base;
}

/** A hand-rolled proto3 encoder, independent of protobufjs, for the expected bytes. */
const wire = {
  varint(value: number): number[] {
    const bytes: number[] = [];
    let rest = value;
    while (rest > 0x7f) {
      bytes.push((rest & 0x7f) | 0x80);
      rest >>>= 7;
    }
    bytes.push(rest);
    return bytes;
  },
  bytes(field: number, payload: number[]): number[] {
    return [...wire.varint((field << 3) | 2), ...wire.varint(payload.length), ...payload];
  },
  string(field: number, value: string): number[] {
    return wire.bytes(field, [...Buffer.from(value, 'utf8')]);
  },
  int32(field: number, value: number): number[] {
    return [...wire.varint(field << 3), ...wire.varint(value)];
  },
};

describe('api.v1.beta1 messages (protobufjs reflection)', () => {
  it.each(FIELDS)(
    '%s.%s is number %i of type %s (fully qualified)',
    (messageName, fieldName, number, type) => {
      const field = typeOf(messageName).fields[fieldName];
      expect(field?.id).toBe(number);
      expect(reflectedType(field!)).toBe(type);
    },
  );

  it('packs repeated int32 (GraphConfig sizes), as proto3 does by default', () => {
    const graph = typeOf('GraphConfig');
    const bytes = graph.encode(graph.fromObject({ input_sizes: [1, 300] })).finish();
    expect([...bytes]).toEqual(wire.bytes(2, [...wire.varint(1), ...wire.varint(300)]));
  });

  it("declares Katib's go_package", () => {
    expect(root.lookup(PACKAGE)?.options).toEqual({
      go_package: 'github.com/kubeflow/katib/pkg/apis/manager/v1beta1;api_v1_beta1',
    });
  });
});

describe('bytes on the wire', () => {
  const request: ReportObservationLogRequest = {
    trial_name: 'mnist-random-x7k2',
    observation_log: {
      metric_logs: [
        { time_stamp: '2026-11-22T08:29:59Z', metric: { name: 'accuracy', value: '0.91' } },
        { time_stamp: '2026-11-22T08:30:00.5Z', metric: { name: 'loss', value: '0.2' } },
      ],
    },
  };
  const metricLog = (time: string, name: string, value: string): number[] =>
    wire.bytes(1, [
      ...wire.string(1, time),
      ...wire.bytes(2, [...wire.string(1, name), ...wire.string(2, value)]),
    ]);
  const expectedBytes = [
    ...wire.string(1, 'mnist-random-x7k2'),
    ...wire.bytes(2, [
      ...metricLog('2026-11-22T08:29:59Z', 'accuracy', '0.91'),
      ...metricLog('2026-11-22T08:30:00.5Z', 'loss', '0.2'),
    ]),
  ];
  const method = api.DBManager.service.ReportObservationLog;

  it('a ReportObservationLogRequest encodes (protobufjs) to the field numbers of the reference', () => {
    const type = typeOf('ReportObservationLogRequest');
    const bytes = type.encode(type.fromObject(request)).finish();
    expect([...bytes]).toEqual(expectedBytes);
    expect([...method.requestSerialize(request)]).toEqual(expectedBytes);
  });

  it('decodes back to the same request, with protobufjs and with the grpc-js method definition', () => {
    const type = typeOf('ReportObservationLogRequest');
    const bytes = type.encode(type.fromObject(request)).finish();
    expect(type.toObject(type.decode(bytes), { defaults: true })).toEqual(request);
    expect(method.requestDeserialize(Buffer.from(bytes))).toEqual(request);
  });

  it('GetSuggestionsRequest carries current_request_number as field 4, total_request_number as field 5', () => {
    const bytes = api.Suggestion.service.GetSuggestions.requestSerialize({
      current_request_number: 3,
      total_request_number: 9,
    });
    expect([...bytes]).toEqual([...wire.int32(4, 3), ...wire.int32(5, 9)]);
  });

  it('enums travel as numbers and load as strings; labels are a map', () => {
    const method = api.EarlyStopping.service.GetEarlyStoppingRules;
    const bytes = method.requestSerialize({
      trials: [{ name: 't', spec: { labels: { a: 'b' } }, status: { condition: 'EARLYSTOPPED' } }],
    });
    const decoded = method.requestDeserialize(bytes);
    expect(decoded.trials[0]?.status?.condition).toBe('EARLYSTOPPED');
    expect(decoded.trials[0]?.spec?.labels).toEqual({ a: 'b' });
    // TrialStatus.condition = 3 (varint 6) inside Trial.status = 3.
    expect([...bytes]).toEqual(
      wire.bytes(2, [
        ...wire.string(1, 't'),
        ...wire.bytes(2, wire.bytes(4, [...wire.string(1, 'a'), ...wire.string(2, 'b')])),
        ...wire.bytes(3, wire.int32(3, 6)),
      ]),
    );
  });
});

describe('the health proto loads next to it', () => {
  it('keeps grpc.health.v1.Health/Check', () => {
    const health = loadPackageDefinition(['grpc/health/v1/health.proto']) as unknown as HealthGrpcType;
    expect(health.grpc.health.v1.Health.service.Check.path).toBe('/grpc.health.v1.Health/Check');
  });
});
