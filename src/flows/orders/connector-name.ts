/** The connector a supplier flow job names in `jobs.<name>.connector`, or a clear error when it names none. */
export function requireConnectorName(flow: string, job: { name: string; connector?: string }): string {
  if (job.connector === undefined || job.connector === '') {
    throw new Error(
      `jobs.${job.name}.connector: the ${flow} flow needs an ERP connector; name one of the connectors: entries`,
    );
  }
  return job.connector;
}
