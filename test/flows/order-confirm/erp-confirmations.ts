/** Confirmations recorded in the demo ERP the way its users would, for the order-confirm tests. */
import type { SqlDriver } from '../../../src/kit/sql/driver.js';

export interface LineChange {
  quantity?: string;
  substitute?: string;
  remark?: string;
}

let sequence = 0;

/** Inserts a confirmation of `erpOrder`; `lines` by line number, unspecified lines confirmed as ordered. */
export async function erpConfirms(
  driver: SqlDriver,
  erpOrder: string,
  kind: 'full' | 'partial' | 'reject',
  lines: Record<number, LineChange> = {},
  reason: string | null = null,
): Promise<string> {
  sequence += 1;
  const ref = `CF${String(process.pid)}-${String(sequence).padStart(5, '0')}`;
  await driver.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO ORDCONFIRM (CONFNUM, ORDNAME, KIND, REASON, CREATEDAT) VALUES (:ref, :o, :kind, :reason, '2026-11-22')`,
      { ref, o: erpOrder, kind, reason },
    );
    if (kind === 'reject') return;
    const { rows } = await tx.query(
      'SELECT LINE, PARTNAME, TQUANT FROM ORDERITEMS WHERE ORDNAME = :o ORDER BY LINE',
      {
        o: erpOrder,
      },
    );
    for (const row of rows) {
      const line = Number(row['LINE']);
      const change = lines[line] ?? {};
      await tx.query(
        `INSERT INTO ORDCONFIRMITEMS (CONFNUM, LINE, PARTNAME, CQUANT, SUBSTITUTE, REMARK)
         VALUES (:ref, :line, :part, :qty, :sub, :remark)`,
        {
          ref,
          line,
          part: String(row['PARTNAME']),
          qty: change.quantity ?? String(row['TQUANT']),
          sub: change.substitute ?? null,
          remark: change.remark ?? null,
        },
      );
    }
  });
  return ref;
}
