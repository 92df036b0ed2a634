// What a hand-written reader or writer reads or writes, declared once beside it as the .proto
// declares it: per message (its full name), each field's number and type (a scalar's name, or the
// full name of a message or enum; "repeated " before it for a repeated field). The code takes its
// field numbers from the declaration, and test/unit/shared/protobuf-schemas.test.ts checks every
// declaration against the files in proto/.

export type FieldDeclaration = readonly [number: number, type: string];
export type MessageDeclaration = Readonly<Record<string, FieldDeclaration>>;
export type SchemaDeclaration = Readonly<Record<string, MessageDeclaration>>;

/** A message's field numbers by field name. */
export function fieldNumbers<M extends MessageDeclaration>(message: M): { readonly [K in keyof M]: number } {
  return Object.freeze(
    Object.fromEntries(Object.entries(message).map(([name, [number]]) => [name, number])),
  ) as { readonly [K in keyof M]: number };
}
