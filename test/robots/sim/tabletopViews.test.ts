/**
 * The tabletop's cached views of MuJoCo's arrays (robots/sim/palm/views.ts): they read and write the simulation
 * itself, and they are made again when the WASM heap grows under them (which detaches every view made before).
 */
import { describe, expect, it } from "vitest";
import { mujoco } from "../../../robots/sim/mujoco";
import { buildScene } from "../../../robots/sim/tabletop/scenes";
import { modelViews, views } from "../../../robots/sim/palm/views";

describe("tabletop views of MjData", () => {
  it("read and write the simulation's own arrays, and survive the heap growing", async () => {
    const mj = await mujoco();
    const model = mj.MjModel.from_xml_string(buildScene("kitchen").xml);
    const data = new mj.MjData(model);
    const extra: { delete(): void }[] = [];
    try {
      const cached = views(data);
      expect(views(data)).toBe(cached); // made once
      expect(cached.qpos.length).toBe(model.nq);
      cached.ctrl[1] = 0.25;
      expect((data.ctrl as Float64Array)[1]).toBe(0.25);
      (data.qpos as Float64Array)[0] = 0.125;
      expect(cached.qpos[0]).toBe(0.125);
      expect(modelViews(model).timestep).toBe(model.opt.timestep);

      // Allocate until the heap grows: the old views go empty, and a lookup makes live ones.
      const before = cached.qpos;
      for (let i = 0; i < 400 && before.length !== 0; i++) extra.push(new mj.MjData(model));
      expect(before.length).toBe(0);
      const after = views(data);
      expect(after === cached).toBe(false);
      expect(after.qpos.length).toBe(model.nq);
      expect(after.qpos[0]).toBe(0.125);
      after.qvel[0] = -0.5;
      mj.mj_step(model, data);
      expect(views(data).qpos[0]).toBe((data.qpos as Float64Array)[0]);
      expect(views(data).xpos).toEqual(data.xpos);
    } finally {
      for (const d of extra) d.delete();
      data.delete();
      model.delete();
    }
  });
});
