// What the FTPS and SFTP delivery tests (ftps.test.ts, sftp.test.ts) share: a standalone job that
// exports the project's order details as CSV and uploads them, and the digest of that CSV to
// compare with what the loopback server stored.
import { finalFiles, runStandaloneJob } from '../jobs/helpers';

/** Runs job `id` for project `p`: the order as CSV, upload-to-ftp with `parameters`, finalize. */
export function runCsvUploadJob(id: string, p: Record<string, unknown>, parameters: Record<string, unknown>) {
  const tasks = [
    { name: 'csv', type: 'sn-export-order-details-to-csv', outputArtifacts: ['order'] },
    { name: 'upload', type: 'upload-to-ftp', inputArtifacts: ['order'], parameters },
    { name: 'finalize', type: 'finalize', finalArtifacts: ['order'] },
  ];
  return runStandaloneJob(id, p, tasks, 40_000);
}

/** The size and SHA-256 of the job's final CSV, as the servers' inspector lists files. */
export async function csvDigest(jobId: string): Promise<{ size: number; sha256: string }> {
  const [{ bytes }] = await finalFiles(jobId);
  const sha256 = [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  return { size: bytes.length, sha256 };
}
