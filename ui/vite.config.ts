/// <reference types="vitest/config" />
import { defineConfig } from "vite";
import react from "@vitejs/plugin-react";

// The build goes straight into the daemon package: ggd serves ggd/web/ at `/`.
export default defineConfig({
  plugins: [react()],
  base: "./",
  build: {
    outDir: "../ggd/web",
    emptyOutDir: true,
    sourcemap: false,
  },
  test: {
    environment: "jsdom",
    include: ["test/**/*.test.ts", "test/**/*.test.tsx"],
  },
});
