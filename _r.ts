import { startSimProcess } from './cli/simProcess';
import { compileClosedLoop } from './graphs/closedLoop';
import { closeSessions } from './graphs/session';
import { memoryCheckpointer } from './memory/checkpointer';
import { BridgeClient } from './robots/bridge/client';
const scenario = process.argv[2] ?? 'integration_tea_to_trash';
const variant = process.argv[3] ?? 'full';
const noise = Number(process.argv[4] ?? 0);
const sim = await startSimProcess('kitchen', ['--scenario', scenario, '--speed', 'max']);
const { loadScenario } = await import('./robots/sim/kitchen');
const g = compileClosedLoop(memoryCheckpointer());
const cfg = { configurable: { thread_id: 't1', bridgeUrl: sim.url, variant, noise, dataDir: '/tmp/rgdata' }, recursionLimit: 500 };
const t = performance.now();
try {
for await (const up of await g.stream({ goal: loadScenario(scenario).instruction }, { ...cfg, streamMode: 'updates' })) {
  for (const [node, u] of Object.entries(up as any)) {
    const x: any = u;
    let line = node;
    if (node === 'planner' && x.plan) line += ` subgoal="${x.plan.subgoal}" steps=${JSON.stringify(x.plan.steps.map((s:any)=>`${s.robot}.${s.skill}(${Object.values(s.args).join(',')})`))}`;
    if (x.status && x.status!=='running') line += ` status=${x.status} ${x.statusReason}`;
    if (node === 'critic') line += ` ${x.critique?.verdict} ${x.critique?.feedback}`;
    if (node === 'perceiver') line += ' ' + JSON.stringify(Object.values(x.observations??{}).map((o:any)=>o.robot+':'+o.summary+' vis='+o.visiblePlaces));
    if (node === 'executor') line += ` ${JSON.stringify(x.history?.[0]?.call)} ok=${x.history?.[0]?.ok} ${x.history?.[0]?.message}`;
    if (node === 'verifier' && x.plan === null) line += ` REJECT ${x.lastFailure}`;
    console.log(line);
  }
}
} catch (e) { console.log('ERR', e); }
const c = await BridgeClient.connect(sim.url);
console.log(JSON.stringify(await c.callService('/evaluator/check')), ((performance.now()-t)/1000).toFixed(1)+'s');
await c.close(); await closeSessions(); await sim.stop();
