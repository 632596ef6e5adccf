/** What a CLI command may touch, so tests can run commands in-process. */
export interface CliIo {
  cwd: string;
  env: Record<string, string | undefined>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** The time a command takes as now (the dashboard's missing series); the clock's when absent. */
  now?: () => Date;
}
