/* peerbench.c: the work of `tgsi bench compute` and `tgsi bench frag` run
 * by Mesa's OpenGL drivers, headless (EGL on Mesa's surfaceless platform,
 * an OpenGL core context), so that llvmpipe and softpipe are measured on
 * the same machine in the same run as tgsi.
 *
 *   peerbench info
 *   peerbench compute N REPS ITERS   fp64 + int64 loop over two storage
 *                                    buffers, N invocations (groups of 64)
 *   peerbench frag SIZE FRAMES ITERS one bilinear sample and an ITERS-long
 *                                    sin/cos loop on every pixel of a
 *                                    SIZE x SIZE RGBA8 target
 *
 * Each timed verb prints one line `<verb> throughput: best B median M
 * <items>/s` (items: invocations or fragments), which `tgsi bench --peer`
 * reads. The driver is chosen by the environment: LIBGL_ALWAYS_SOFTWARE=1
 * with GALLIUM_DRIVER=llvmpipe or softpipe; LP_NUM_THREADS sets llvmpipe's
 * threads. With PEERBENCH_DUMP=FILE the frag verb writes the last frame's
 * RGBA8 pixels there (rows from the bottom, as glReadPixels gives them).
 *
 * The shaders are GLSL twins of benches/data/12_fp64_int64_ssbo.tgsi and
 * benches/data/01_loop_sin_tex.tgsi: the GLSL sources Mesa made that TGSI
 * from (the .glsl.comp and .glsl.frag files beside them in
 * tests/fixtures/corpus/mesa-generated), with the same
 * inputs `tgsi bench` builds. */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *compute_glsl =
   "#version 330 core\n"
   "#extension GL_ARB_compute_shader : require\n"
   "#extension GL_ARB_shader_storage_buffer_object : require\n"
   "#extension GL_ARB_gpu_shader_fp64 : require\n"
   "#extension GL_ARB_gpu_shader_int64 : require\n"
   "layout(local_size_x = 64) in;\n"
   "layout(std430, binding = 0) buffer D { double d[]; };\n"
   "layout(std430, binding = 1) buffer U { uint64_t u[]; };\n"
   "uniform int iters;\n"
   "void main() {\n"
   "  uint i = gl_GlobalInvocationID.x;\n"
   "  double x = d[i];\n"
   "  uint64_t h = u[i];\n"
   "  for (int k = 0; k < iters; k++) {\n"
   "    x = x * 1.0000001LF + 0.5LF / (x + 1.0LF);\n"
   "    h = h * 6364136223846793005UL + 1442695040888963407UL;\n"
   "    h ^= h >> 33;\n"
   "  }\n"
   "  d[i] = x;\n"
   "  u[i] = h;\n"
   "}\n";

/* A full-target quad as a 4-vertex strip from gl_VertexID alone. */
static const char *quad_vertex_glsl =
   "#version 330 core\n"
   "out vec2 uv;\n"
   "void main() {\n"
   "  vec2 corner = vec2(float(gl_VertexID & 1), float((gl_VertexID >> 1) & 1));\n"
   "  gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);\n"
   "  uv = corner;\n"
   "}\n";

static const char *frag_glsl =
   "#version 330 core\n"
   "uniform sampler2D tex;\n"
   "uniform int iters;\n"
   "in vec2 uv;\n"
   "out vec4 o;\n"
   "void main() {\n"
   "  vec4 t = texture(tex, uv);\n"
   "  float x = t.x + uv.x, y = t.y + uv.y;\n"
   "  for (int i = 0; i < iters; i++) { x = x * 1.0001 + sin(y); y = y * 0.9999 + cos(x) * 0.5; }\n"
   "  o = vec4(fract(x), fract(y), t.z, 1.0);\n"
   "}\n";

static void die(const char *what)
{
   fprintf(stderr, "peerbench: %s\n", what);
   exit(1);
}

static void open_context(void)
{
   PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   if (!platform_display)
      die("EGL has no eglGetPlatformDisplayEXT");
   EGLDisplay display = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
   if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL))
      die("no surfaceless EGL display (is Mesa's libegl-mesa0 installed?)");
   if (!eglBindAPI(EGL_OPENGL_API))
      die("EGL cannot bind OpenGL");
   /* llvmpipe gives 4.5, softpipe 3.3 with the compute, storage-buffer,
    * fp64 and int64 extensions the shaders ask for */
   static const EGLint versions[][2] = {{4, 5}, {4, 3}, {3, 3}};
   EGLContext context = EGL_NO_CONTEXT;
   for (unsigned v = 0; v < 3 && context == EGL_NO_CONTEXT; v++) {
      const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, versions[v][0],
                                   EGL_CONTEXT_MINOR_VERSION, versions[v][1],
                                   EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                   EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
      context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
   }
   if (context == EGL_NO_CONTEXT)
      die("no OpenGL 3.3 or later core context");
   if (!eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
      die("eglMakeCurrent failed");
}

/* Prints the compiler's or linker's log of `object`, then dies. */
static void die_with_log(GLuint object, void (*get_log)(GLuint, GLsizei, GLsizei *, GLchar *),
                         const char *what)
{
   char log[4096];
   get_log(object, sizeof log, NULL, log);
   fprintf(stderr, "%s\n", log);
   die(what);
}

static GLuint compile(GLenum stage, const char *source)
{
   GLuint shader = glCreateShader(stage);
   glShaderSource(shader, 1, &source, NULL);
   glCompileShader(shader);
   GLint ok = 0;
   glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
   if (!ok)
      die_with_log(shader, glGetShaderInfoLog, "a shader did not compile");
   return shader;
}

static GLuint link(GLuint a, GLuint b)
{
   GLuint program = glCreateProgram();
   glAttachShader(program, a);
   if (b)
      glAttachShader(program, b);
   glLinkProgram(program);
   GLint ok = 0;
   glGetProgramiv(program, GL_LINK_STATUS, &ok);
   if (!ok)
      die_with_log(program, glGetProgramInfoLog, "a program did not link");
   return program;
}

static double now(void)
{
   struct timespec t;
   clock_gettime(CLOCK_MONOTONIC, &t);
   return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

/* Prints best and median of `items / seconds[k]`. */
static void report(const char *verb, const char *items, double amount, double *seconds, int n)
{
   qsort(seconds, n, sizeof *seconds, by_value);
   double median = n % 2 ? seconds[n / 2] : 0.5 * (seconds[n / 2 - 1] + seconds[n / 2]);
   printf("%s throughput: best %.6g median %.6g %s/s\n", verb, amount / seconds[0],
          amount / median, items);
}

static int positive(const char *text, const char *what)
{
   long v = strtol(text, NULL, 10);
   if (v <= 0 || v > (1L << 30)) {
      fprintf(stderr, "peerbench: %s must be a positive count, not `%s`\n", what, text);
      exit(1);
   }
   return (int)v;
}

static void run_compute(int n, int reps, int iters)
{
   if (n % 64)
      die("compute: N must be a multiple of 64");
   size_t bytes = (size_t)n * 8;
   double *d = malloc(bytes);
   uint64_t *u = malloc(bytes);
   for (int i = 0; i < n; i++) {
      d[i] = (double)i * 0.001;
      u[i] = (uint64_t)i * 0x9E3779B97F4A7C15ull;
   }
   GLuint program = link(compile(GL_COMPUTE_SHADER, compute_glsl), 0);
   GLuint buffers[2];
   glGenBuffers(2, buffers);
   glUseProgram(program);
   glUniform1i(glGetUniformLocation(program, "iters"), iters);
   double *seconds = calloc(reps, sizeof *seconds);
   for (int r = -1; r < reps; r++) {
      /* every dispatch starts from the same inputs, uploaded untimed */
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 0, buffers[0]);
      glBufferData(GL_SHADER_STORAGE_BUFFER, bytes, d, GL_DYNAMIC_DRAW);
      glBindBufferBase(GL_SHADER_STORAGE_BUFFER, 1, buffers[1]);
      glBufferData(GL_SHADER_STORAGE_BUFFER, bytes, u, GL_DYNAMIC_DRAW);
      glFinish();
      double start = now();
      glDispatchCompute(n / 64, 1, 1);
      glFinish();
      if (r >= 0)
         seconds[r] = now() - start;
   }
   if (glGetError() != GL_NO_ERROR)
      die("OpenGL reported an error");
   report("compute", "invocations", n, seconds, reps);
}

static void run_frag(int size, int frames, int iters)
{
   GLuint program = link(compile(GL_VERTEX_SHADER, quad_vertex_glsl),
                         compile(GL_FRAGMENT_SHADER, frag_glsl));
   uint8_t *texels = malloc(256 * 256 * 4);
   for (int i = 0; i < 256 * 256; i++) {
      texels[4 * i + 0] = (uint8_t)(i % 256);
      texels[4 * i + 1] = (uint8_t)(i / 256);
      texels[4 * i + 2] = (uint8_t)((7 * i) % 256);
      texels[4 * i + 3] = 255;
   }
   GLuint texture, target, framebuffer, vertex_array;
   glGenTextures(1, &texture);
   glBindTexture(GL_TEXTURE_2D, texture);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, 256, 256, 0, GL_RGBA, GL_UNSIGNED_BYTE, texels);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
   glGenTextures(1, &target);
   glBindTexture(GL_TEXTURE_2D, target);
   glTexStorage2D(GL_TEXTURE_2D, 1, GL_RGBA8, size, size);
   glGenFramebuffers(1, &framebuffer);
   glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
   glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, target, 0);
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      die("the RGBA8 target is not renderable");
   glGenVertexArrays(1, &vertex_array);
   glBindVertexArray(vertex_array);
   glViewport(0, 0, size, size);
   glUseProgram(program);
   glUniform1i(glGetUniformLocation(program, "tex"), 0);
   glUniform1i(glGetUniformLocation(program, "iters"), iters);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D, texture);
   double *seconds = calloc(frames, sizeof *seconds);
   for (int f = -1; f < frames; f++) {
      double start = now();
      glDrawArrays(GL_TRIANGLE_STRIP, 0, 4);
      glFinish();
      if (f >= 0)
         seconds[f] = now() - start;
   }
   if (glGetError() != GL_NO_ERROR)
      die("OpenGL reported an error");
   report("frag", "fragments", (double)size * size, seconds, frames);
   const char *dump = getenv("PEERBENCH_DUMP");
   if (dump) {
      uint8_t *pixels = malloc((size_t)size * size * 4);
      glReadPixels(0, 0, size, size, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
      FILE *out = fopen(dump, "wb");
      if (!out || fwrite(pixels, 4, (size_t)size * size, out) != (size_t)size * size)
         die("cannot write PEERBENCH_DUMP");
      fclose(out);
   }
}

int main(int argc, char **argv)
{
   if (argc < 2) {
      fprintf(stderr, "usage: peerbench info | compute N REPS ITERS | frag SIZE FRAMES ITERS\n");
      return 1;
   }
   open_context();
   if (strcmp(argv[1], "info") == 0) {
      printf("renderer: %s\nversion: %s\n", (const char *)glGetString(GL_RENDERER),
             (const char *)glGetString(GL_VERSION));
   } else if (strcmp(argv[1], "compute") == 0 && argc == 5) {
      run_compute(positive(argv[2], "N"), positive(argv[3], "REPS"), atoi(argv[4]));
   } else if (strcmp(argv[1], "frag") == 0 && argc == 5) {
      run_frag(positive(argv[2], "SIZE"), positive(argv[3], "FRAMES"), atoi(argv[4]));
   } else {
      fprintf(stderr, "peerbench: unknown verb or wrong arguments\n");
      return 1;
   }
   return 0;
}
