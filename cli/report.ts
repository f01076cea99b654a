// `swapsim report DIR|FILE…` writes report.html beside a run's report.json (or, for any other JSON file such
// as a k6 summary, into a new reports/out folder) and prints each page's path; `--history` compares bench runs.
// Exit status: 0 written, 2 unreadable or unknown input (nothing written for it).
import type { Command } from 'commander';

interface ReportFlags {
  history?: boolean;
  compare: boolean;
}

export function registerReport(program: Command): void {
  program
    .command('report')
    .description(
      'write a self-contained report.html for run folders or JSON files (scenario, verify, bench, k6 summary) and print its path',
    )
    .argument('[paths...]', 'run folders holding report.json, or JSON files')
    .option('--history', 'bench history: the given bench results (or every bench run under reports/out) side by side')
    .option('--no-compare', 'leave earlier bench runs out of a bench report')
    .showHelpAfterError(false)
    .action(async (paths: string[], flags: ReportFlags, cmd: Command) => {
      const { ReportInputError, writeBenchHistory, writeReport } = await import('../reports/index.ts');
      try {
        if (flags.history) {
          console.log(await writeBenchHistory(paths));
          return;
        }
        if (paths.length === 0) throw new ReportInputError('name a run folder or a JSON file (or pass --history)');
        for (const p of paths) console.log(await writeReport(p, { history: flags.compare }));
      } catch (err) {
        if (err instanceof ReportInputError) cmd.error(`swapsim report: ${err.message}`, { exitCode: 2, code: 'swapsim.report' });
        throw err;
      }
    });
}
