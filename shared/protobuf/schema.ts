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

/**
 * The field numbers of messages one function reads (AlgorithmSpec and EarlyStoppingSpec, say): the
 * first's, once every other declares the same fields with the same numbers and the same scalar
 * types (the messages or enums they name may differ). Throws otherwise, so a reader never reads one
 * message by another's numbers.
 */
export function sharedFieldNumbers<S extends SchemaDeclaration, M extends keyof S & string>(
  schema: S,
  first: M,
  ...others: readonly (keyof S & string)[]
): { readonly [K in keyof S[M]]: number } {
  const declared: MessageDeclaration = schema[first]!;
  const names = Object.keys(declared);
  for (const other of others) {
    const theirs: MessageDeclaration = schema[other]!;
    const same =
      names.length === Object.keys(theirs).length &&
      names.every((name) => {
        const [number, type] = declared[name]!;
        const field = theirs[name];
        return field !== undefined && field[0] === number && (field[1] === type || bothNamed(type, field[1]));
      });
    if (!same) throw new Error(`${first} and ${other} are read as one layout, but their fields differ`);
  }
  return fieldNumbers(schema[first]!) as { readonly [K in keyof S[M]]: number };
}

/** Both types name a message or enum (a full name has a dot; a scalar's name has none). */
const bothNamed = (a: string, b: string): boolean =>
  a.includes('.') && b.includes('.') && a.startsWith('repeated ') === b.startsWith('repeated ');

/** Throws unless every field of the schema has a one-byte tag (numbers 1 to 15): for writers that size tags so. */
export function requireOneByteTags(schema: SchemaDeclaration): void {
  for (const [message, fields] of Object.entries(schema))
    for (const [name, [number]] of Object.entries(fields))
      if (number < 1 || number > 15) throw new Error(`${message}.${name}: its tag takes more than one byte`);
}
