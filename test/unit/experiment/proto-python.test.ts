// A second implementation reads the proto: protoc from Debian's python3-grpc-tools compiles it, and
// Python's protobuf runtime reports names and field numbers from the generated api_pb2 module.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PYTHON = '/usr/bin/python3';
const COMPILE = path.resolve(import.meta.dirname, '..', '..', 'interop', 'compile_proto.sh');
const MISSING = `${PYTHON} cannot import grpc_tools; scripts/infra.sh up installs python3-grpc-tools (and python3-grpcio)`;

/** Prints {package, go_package, messages, services} as JSON for the api_pb2 under argv[1]. */
const DESCRIBE = `
import json, sys
sys.path.insert(0, sys.argv[1])
from google.protobuf import descriptor_pb2
from google.protobuf.descriptor import FieldDescriptor
from api.v1beta1 import api_pb2, api_pb2_grpc

SCALARS = {FieldDescriptor.TYPE_STRING: "string", FieldDescriptor.TYPE_INT32: "int32", FieldDescriptor.TYPE_DOUBLE: "double"}

def type_of(field):
    if field.message_type is not None and field.message_type.GetOptions().map_entry:
        key, value = field.message_type.fields
        return "map<%s,%s>" % (type_of(key), type_of(value))
    if field.message_type is not None:
        base = field.message_type.full_name
    elif field.enum_type is not None:
        base = field.enum_type.full_name
    else:
        base = SCALARS.get(field.type, "type %d" % field.type)
    return ("repeated " + base) if field.label == FieldDescriptor.LABEL_REPEATED else base

def describe(message):
    proto = descriptor_pb2.DescriptorProto()
    message.CopyToProto(proto)
    return {
        "fields": [[f.name, f.number, type_of(f)] for f in message.fields],
        "reserved": [[r.start, r.end] for r in proto.reserved_range],
    }

names = ["ReportObservationLogRequest", "MetricLog", "TrialSpec", "GetSuggestionsRequest", "FeasibleSpace"]
messages = {}
for name in names:
    message = api_pb2.DESCRIPTOR.message_types_by_name[name]
    messages[message.full_name] = describe(message)
nested = api_pb2.DESCRIPTOR.message_types_by_name["GetSuggestionsReply"].nested_types_by_name["ParameterAssignments"]
messages[nested.full_name] = describe(nested)

services = {}
for service in api_pb2.DESCRIPTOR.services_by_name.values():
    services[service.full_name] = [
        [m.name, m.input_type.full_name, m.output_type.full_name, hasattr(api_pb2_grpc, service.name + "Stub")]
        for m in service.methods
    ]
print(json.dumps({
    "package": api_pb2.DESCRIPTOR.package,
    "go_package": api_pb2.DESCRIPTOR.GetOptions().go_package,
    "messages": messages,
    "services": services,
}))
`;

interface Described {
  package: string;
  go_package: string;
  messages: Record<string, { fields: [string, number, string][]; reserved: [number, number][] }>;
  services: Record<string, [string, string, string, boolean][]>;
}

function run(file: string, args: string[]): string {
  try {
    return execFileSync(file, args, { encoding: 'utf8', stdio: 'pipe', timeout: 60_000 });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? '';
    throw new Error(`${file} ${args[0] ?? ''} failed: ${stderr.trim() || String(error)}`, { cause: error });
  }
}

const scratch = mkdtempSync(path.join(tmpdir(), 'katib-proto-python-'));
let described: Described;

beforeAll(() => {
  try {
    execFileSync(PYTHON, ['-c', 'import grpc_tools.protoc, grpc'], { stdio: 'pipe' });
  } catch (error) {
    throw new Error(MISSING, { cause: error });
  }
  run('bash', [COMPILE, scratch]);
  described = JSON.parse(run(PYTHON, ['-c', DESCRIBE, scratch])) as Described;
}, 120_000);

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const P = 'api.v1.beta1';

describe('api.proto compiled by protoc (python3-grpc-tools) and read by Python protobuf', () => {
  it("keeps Katib's package and go_package", () => {
    expect(described.package).toBe(P);
    expect(described.go_package).toBe('github.com/kubeflow/katib/pkg/apis/manager/v1beta1;api_v1_beta1');
  });

  it('has the reference field numbers and types', () => {
    expect(described.messages).toEqual({
      [`${P}.ReportObservationLogRequest`]: {
        fields: [
          ['trial_name', 1, 'string'],
          ['observation_log', 2, `${P}.ObservationLog`],
        ],
        reserved: [],
      },
      [`${P}.MetricLog`]: {
        fields: [
          ['time_stamp', 1, 'string'],
          ['metric', 2, `${P}.Metric`],
        ],
        reserved: [],
      },
      [`${P}.TrialSpec`]: {
        fields: [
          ['objective', 2, `${P}.ObjectiveSpec`],
          ['parameter_assignments', 3, `${P}.TrialSpec.ParameterAssignments`],
          ['labels', 4, 'map<string,string>'],
        ],
        // end is exclusive in descriptors: reserved 1.
        reserved: [[1, 2]],
      },
      [`${P}.GetSuggestionsRequest`]: {
        fields: [
          ['experiment', 1, `${P}.Experiment`],
          ['trials', 2, `repeated ${P}.Trial`],
          ['current_request_number', 4, 'int32'],
          ['total_request_number', 5, 'int32'],
        ],
        reserved: [[3, 4]],
      },
      [`${P}.FeasibleSpace`]: {
        fields: [
          ['max', 1, 'string'],
          ['min', 2, 'string'],
          ['list', 3, 'repeated string'],
          ['step', 4, 'string'],
          ['distribution', 5, `${P}.Distribution`],
        ],
        reserved: [],
      },
      [`${P}.GetSuggestionsReply.ParameterAssignments`]: {
        fields: [
          ['assignments', 1, `repeated ${P}.ParameterAssignment`],
          ['trial_name', 2, 'string'],
          ['labels', 3, 'map<string,string>'],
        ],
        reserved: [],
      },
    });
  });

  it('has the three services and their eight methods, with stubs in api_pb2_grpc', () => {
    const rpc = (method: string, request: string, reply: string) => [
      method,
      `${P}.${request}`,
      `${P}.${reply}`,
      true,
    ];
    expect(described.services).toEqual({
      [`${P}.DBManager`]: [
        rpc('ReportObservationLog', 'ReportObservationLogRequest', 'ReportObservationLogReply'),
        rpc('GetObservationLog', 'GetObservationLogRequest', 'GetObservationLogReply'),
        rpc('DeleteObservationLog', 'DeleteObservationLogRequest', 'DeleteObservationLogReply'),
      ],
      [`${P}.Suggestion`]: [
        rpc('GetSuggestions', 'GetSuggestionsRequest', 'GetSuggestionsReply'),
        rpc(
          'ValidateAlgorithmSettings',
          'ValidateAlgorithmSettingsRequest',
          'ValidateAlgorithmSettingsReply',
        ),
      ],
      [`${P}.EarlyStopping`]: [
        rpc('GetEarlyStoppingRules', 'GetEarlyStoppingRulesRequest', 'GetEarlyStoppingRulesReply'),
        rpc('SetTrialStatus', 'SetTrialStatusRequest', 'SetTrialStatusReply'),
        rpc(
          'ValidateEarlyStoppingSettings',
          'ValidateEarlyStoppingSettingsRequest',
          'ValidateEarlyStoppingSettingsReply',
        ),
      ],
    });
  });
});
