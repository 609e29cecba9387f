import { spawn, type ChildProcess } from 'node:child_process';

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command-line tool of the build (a compiled `src/cli/*.js`) as its own process, as a
 * user would, collecting its output. `onStart` sees the child and its stderr so far (to signal it
 * mid-run).
 */
export function runCli(
  cli: string, args: readonly string[], env: Record<string, string>, options: { cwd?: string; onStart?: (child: ChildProcess, stderr: () => string) => void } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: options.cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
    options.onStart?.(child, () => stderr);
  });
}
