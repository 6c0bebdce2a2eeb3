/**
 * The legged robot's head camera as the course tests draw detections for it: a pinhole of 60° across a 160-pixel image,
 * as the simulator's (robots/sim/course/scene.ts), so a detection's box agrees with its bearing, range and width.
 */
export const CAMERA = { fov: 60, imageWidth: 160 } as const;

/** The box of a thing `width` m across seen square-on at `distance` m and `bearing` degrees (+ left), clipped to the image. */
export function boxFor(
  distance: number,
  bearing: number,
  width: number,
  y = 120,
  height = 40,
): { x: number; y: number; w: number; h: number } {
  const rad = (d: number) => (d * Math.PI) / 180;
  const focal = CAMERA.imageWidth / 2 / Math.tan(rad(CAMERA.fov / 2));
  const half = (Math.atan2(width / 2, Math.max(0.05, distance)) * 180) / Math.PI;
  const px = (angle: number) =>
    Math.min(
      CAMERA.imageWidth,
      Math.max(0, CAMERA.imageWidth / 2 - focal * Math.tan(rad(Math.max(-89, Math.min(89, angle))))),
    );
  const x0 = px(bearing + half),
    x1 = px(bearing - half);
  return { x: Math.round(x0), y, w: Math.max(1, Math.round(x1 - x0)), h: height };
}
