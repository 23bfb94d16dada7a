/* meshbench.c: the torus scene of examples/scene/ drawn by Mesa's OpenGL
 * drivers, headless, the peer of `tgsi bench mesh --peer`.
 *
 *   meshbench --mesh FILE.obj --texture FILE.png --size WxH --frames N
 *             --out FILE.png --const N=float:v,v,...   (one per buffer)
 *             [--samples N] [--format srgb8|rgba8|rgba16f] [--depth less|none]
 *             [--blend none|alpha] [--cull back|none] [--front ccw|cw]
 *             [--stages scene|facets]
 *
 * It draws the OBJ mesh (positions, normals, texture coordinates; faces
 * fanned into triangles) with GLSL twins of examples/scene/torus_vs.tgsi
 * and torus_fs.tgsi, constant buffer N as uniform block N (vec4 rows), the
 * PNG as an sRGB texture with mipmaps, sampled trilinearly and repeating,
 * into an sRGB RGBA8 target with a 32-bit float depth buffer (test LESS),
 * back faces culled (counter-clockwise front faces), depth
 * 0..1 as the scene's projection gives it. It prints
 * `median S s per frame` over N timed frames after one untimed frame, the
 * median processor time of all its threads per frame (`median cpu C s per
 * frame`, llvmpipe's rasterizer threads and the application's thread that
 * runs its vertex work and setup), and writes the last frame to --out, top
 * row first. The environment chooses
 * the driver (LIBGL_ALWAYS_SOFTWARE=1 GALLIUM_DRIVER=llvmpipe,
 * LP_NUM_THREADS). The options change the target (format, samples per
 * pixel: a multisampled target is resolved into a single-sample one inside
 * each timed frame), the depth test (none: no depth buffer at all),
 * blending (alpha: SRC_ALPHA, ONE_MINUS_SRC_ALPHA for colour and alpha)
 * and culling, as `tgsi bench mesh` draws its other workloads.
 *
 * `--stages facets` draws examples/facets/ instead: GLSL twins of its
 * vertex, tess-control, tess-eval and geometry shaders (each mesh triangle
 * a patch of 3 control points, every tessellation factor 8, the points
 * pushed onto a sphere, each triangle shrunk to 70 % around its centre)
 * before the same fragment shader; `--front cw` makes clockwise triangles
 * the front ones, as the facets come out. */
#define GL_GLEXT_PROTOTYPES 1
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <GL/gl.h>
#include <GL/glext.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_BUFFERS = 4, MAX_WORDS = 64 };

/* The scene's clear colour, linear (as `tgsi bench mesh` clears). */
static const float clear_colour[4] = {0.02f, 0.025f, 0.035f, 1.0f};

static const char *vertex_glsl =
   "#version 450 core\n"
   "layout(location = 0) in vec4 position;\n"
   "layout(location = 1) in vec4 normal;\n"
   "layout(location = 2) in vec4 texcoord;\n"
   "layout(std140, binding = 0) uniform Model { vec4 model[4]; };\n"
   "layout(std140, binding = 1) uniform View { vec4 view[4]; };\n"
   "layout(std140, binding = 2) uniform Projection { vec4 projection[4]; };\n"
   "layout(location = 0) out vec3 world_normal;\n"
   "layout(location = 1) out vec3 world_position;\n"
   "layout(location = 2) out vec2 uv;\n"
   "void main() {\n"
   "  vec4 world = vec4(dot(model[0], position), dot(model[1], position),\n"
   "                    dot(model[2], position), dot(model[3], position));\n"
   "  vec4 eye = vec4(dot(view[0], world), dot(view[1], world),\n"
   "                  dot(view[2], world), dot(view[3], world));\n"
   "  gl_Position = vec4(dot(projection[0], eye), dot(projection[1], eye),\n"
   "                     dot(projection[2], eye), dot(projection[3], eye));\n"
   "  world_normal = vec3(dot(model[0].xyz, normal.xyz), dot(model[1].xyz, normal.xyz),\n"
   "                      dot(model[2].xyz, normal.xyz));\n"
   "  world_position = world.xyz;\n"
   "  uv = texcoord.xy;\n"
   "}\n";

static const char *fragment_glsl =
   "#version 450 core\n"
   "layout(location = 0) in vec3 world_normal;\n"
   "layout(location = 1) in vec3 world_position;\n"
   "layout(location = 2) in vec2 uv;\n"
   "layout(std140, binding = 3) uniform Light { vec4 c[8]; };\n"
   "layout(binding = 0) uniform sampler2D checker;\n"
   "out vec4 colour;\n"
   "void main() {\n"
   "  vec3 n = normalize(world_normal);\n"
   "  vec3 v = normalize(c[1].xyz - world_position);\n"
   "  vec3 h = normalize(c[0].xyz + v);\n"
   "  float key = max(dot(n, c[0].xyz), 0.0);\n"
   "  float spec = pow(max(dot(n, h), 0.0), c[2].w);\n"
   "  float fill = max(dot(n, c[5].xyz), 0.0);\n"
   "  float rim = pow(1.0 - max(dot(n, v), 0.0), c[7].w);\n"
   "  vec4 albedo = texture(checker, uv * vec2(3.0, 1.0));\n"
   "  vec3 light = c[2].xyz * key + c[3].xyz;\n"
   "  light = c[6].xyz * fill + light;\n"
   "  vec3 result = albedo.xyz * light;\n"
   "  result = c[4].xyz * spec + result;\n"
   "  result = c[7].xyz * rim + result;\n"
   "  colour = vec4(result, 1.0);\n"
   "}\n";

/* The facets scene (the TGSI shaders of examples/facets/): the corners
 * pass through, */
static const char *facets_vertex_glsl =
   "#version 450 core\n"
   "layout(location = 0) in vec4 position;\n"
   "layout(location = 2) in vec4 texcoord;\n"
   "layout(location = 0) out vec4 corner_uv;\n"
   "void main() {\n"
   "  gl_Position = position;\n"
   "  corner_uv = texcoord;\n"
   "}\n";

/* the patch's three corners passed on (examples/facets puts them in one
 * control point; three per patch are GLSL's way), factors 8, */
static const char *facets_control_glsl =
   "#version 450 core\n"
   "layout(vertices = 3) out;\n"
   "layout(location = 0) in vec4 corner_uv[];\n"
   "layout(location = 0) out vec4 corner[];\n"
   "layout(location = 1) out vec4 corner_tex[];\n"
   "void main() {\n"
   "  gl_TessLevelOuter[0] = 8.0;\n"
   "  gl_TessLevelOuter[1] = 8.0;\n"
   "  gl_TessLevelOuter[2] = 8.0;\n"
   "  gl_TessLevelInner[0] = 8.0;\n"
   "  corner[gl_InvocationID] = gl_in[gl_InvocationID].gl_Position;\n"
   "  corner_tex[gl_InvocationID] = corner_uv[gl_InvocationID];\n"
   "}\n";

/* each domain point onto the sphere of radius 1.2, then the scene's
 * transforms (`cw`: GL orients the triangle domain the other way round
 * from Direct3D's, whose counter-clockwise order sphere_tes.tgsi asks
 * for; the triangles come out with the same winding on screen), */
static const char *facets_eval_glsl =
   "#version 450 core\n"
   "layout(triangles, equal_spacing, cw) in;\n"
   "layout(location = 0) in vec4 corner[];\n"
   "layout(location = 1) in vec4 corner_tex[];\n"
   "layout(std140, binding = 0) uniform Model { vec4 model[4]; };\n"
   "layout(std140, binding = 1) uniform View { vec4 view[4]; };\n"
   "layout(std140, binding = 2) uniform Projection { vec4 projection[4]; };\n"
   "layout(location = 0) out vec3 normal_out;\n"
   "layout(location = 1) out vec4 world_out;\n"
   "layout(location = 2) out vec4 uv_out;\n"
   "void main() {\n"
   "  vec3 u = gl_TessCoord;\n"
   "  vec3 q = corner[0].xyz * u.x + corner[1].xyz * u.y + corner[2].xyz * u.z;\n"
   "  vec3 n = q * inversesqrt(dot(q, q));\n"
   "  vec4 point = vec4(n * 1.2, 1.0);\n"
   "  vec4 world = vec4(dot(model[0], point), dot(model[1], point),\n"
   "                    dot(model[2], point), dot(model[3], point));\n"
   "  vec4 eye = vec4(dot(view[0], world), dot(view[1], world),\n"
   "                  dot(view[2], world), dot(view[3], world));\n"
   "  gl_Position = vec4(dot(projection[0], eye), dot(projection[1], eye),\n"
   "                     dot(projection[2], eye), dot(projection[3], eye));\n"
   "  normal_out = vec3(dot(model[0].xyz, n), dot(model[1].xyz, n), dot(model[2].xyz, n));\n"
   "  world_out = world;\n"
   "  uv_out = corner_tex[0] * u.x + corner_tex[1] * u.y + corner_tex[2] * u.z;\n"
   "}\n";

/* and every triangle shrinks to 70 % around its centre. */
static const char *facets_geometry_glsl =
   "#version 450 core\n"
   "layout(triangles) in;\n"
   "layout(triangle_strip, max_vertices = 3) out;\n"
   "layout(location = 0) in vec3 normal_in[];\n"
   "layout(location = 1) in vec4 world_in[];\n"
   "layout(location = 2) in vec4 uv_in[];\n"
   "layout(location = 0) out vec3 world_normal;\n"
   "layout(location = 1) out vec3 world_position;\n"
   "layout(location = 2) out vec2 uv;\n"
   "void main() {\n"
   "  vec4 centre = (gl_in[0].gl_Position + gl_in[1].gl_Position + gl_in[2].gl_Position) * 0.1;\n"
   "  vec4 world_centre = (world_in[0] + world_in[1] + world_in[2]) * 0.1;\n"
   "  for (int i = 0; i < 3; i++) {\n"
   "    gl_Position = gl_in[i].gl_Position * 0.7 + centre;\n"
   "    world_normal = normal_in[i];\n"
   "    world_position = (world_in[i] * 0.7 + world_centre).xyz;\n"
   "    uv = uv_in[i].xy;\n"
   "    EmitVertex();\n"
   "  }\n"
   "  EndPrimitive();\n"
   "}\n";

static void die(const char *what, const char *detail)
{
   fprintf(stderr, "meshbench: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
   exit(1);
}

struct mesh {
   float *attributes; /* per vertex: position xyzw, normal xyzw, uv xyzw */
   unsigned vertex_count;
   unsigned *indices;
   unsigned index_count;
};

/* Reads `v`, `vn`, `vt` and `f` lines. Vertex k of the draw is position k
 * with normal k and texture coordinate k: faces must name the same number
 * thrice (`f 1/1/1 2/2/2 ...`), as the scene's meshes do. */
static struct mesh load_obj(const char *path)
{
   FILE *f = fopen(path, "r");
   if (!f)
      die("cannot open", path);
   size_t cap = 1024, v = 0, vn = 0, vt = 0, icap = 3072;
   struct mesh m = {calloc(cap * 12, sizeof(float)), 0, malloc(icap * sizeof(unsigned)), 0};
   char line[512];
   while (fgets(line, sizeof line, f)) {
      float x = 0, y = 0, z = 0;
      size_t *count = NULL;
      int offset = 0;
      if (strncmp(line, "v ", 2) == 0)
         count = &v, offset = 0;
      else if (strncmp(line, "vn ", 3) == 0)
         count = &vn, offset = 4;
      else if (strncmp(line, "vt ", 3) == 0)
         count = &vt, offset = 8;
      if (count) {
         sscanf(strchr(line, ' ') + 1, "%f %f %f", &x, &y, &z);
         if (*count >= cap) {
            m.attributes = realloc(m.attributes, cap * 2 * 12 * sizeof(float));
            memset(m.attributes + cap * 12, 0, cap * 12 * sizeof(float));
            cap *= 2;
         }
         float *a = m.attributes + *count * 12 + offset;
         a[0] = x, a[1] = y, a[2] = offset == 8 ? 0.0f : z;
         a[3] = offset == 4 ? 0.0f : 1.0f;
         (*count)++;
      } else if (strncmp(line, "f ", 2) == 0) {
         unsigned corners[16];
         int n = 0;
         for (char *word = strtok(line + 2, " \t\r\n"); word && n < 16; word = strtok(NULL, " \t\r\n")) {
            unsigned a, b, c;
            if (sscanf(word, "%u/%u/%u", &a, &b, &c) != 3 || a != b || a != c || a == 0)
               die("faces must be `f k/k/k ...`", word);
            corners[n++] = a - 1;
         }
         for (int k = 1; k + 1 < n; k++) {
            if (m.index_count + 3 > icap)
               m.indices = realloc(m.indices, (icap *= 2) * sizeof(unsigned));
            m.indices[m.index_count++] = corners[0];
            m.indices[m.index_count++] = corners[k];
            m.indices[m.index_count++] = corners[k + 1];
         }
      }
   }
   fclose(f);
   if (v != vn || v != vt)
      die("the mesh needs as many normals and texture coordinates as positions", path);
   m.vertex_count = (unsigned)v;
   return m;
}

static uint8_t *load_png(const char *path, unsigned *width, unsigned *height)
{
   png_image image;
   memset(&image, 0, sizeof image);
   image.version = PNG_IMAGE_VERSION;
   if (!png_image_begin_read_from_file(&image, path))
      die("cannot read the PNG", path);
   image.format = PNG_FORMAT_RGBA;
   uint8_t *pixels = malloc(PNG_IMAGE_SIZE(image));
   if (!png_image_finish_read(&image, NULL, pixels, 0, NULL))
      die("cannot decode the PNG", path);
   *width = image.width;
   *height = image.height;
   return pixels;
}

static void save_png(const char *path, const uint8_t *pixels, unsigned width, unsigned height)
{
   png_image image;
   memset(&image, 0, sizeof image);
   image.version = PNG_IMAGE_VERSION;
   image.width = width;
   image.height = height;
   image.format = PNG_FORMAT_RGBA;
   /* glReadPixels gives the bottom row first: a negative stride flips it */
   if (!png_image_write_to_file(&image, path, 0, pixels, -(png_int_32)(width * 4), NULL))
      die("cannot write the PNG", path);
}

static GLuint compile(GLenum stage, const char *source)
{
   GLuint shader = glCreateShader(stage);
   glShaderSource(shader, 1, &source, NULL);
   glCompileShader(shader);
   GLint ok = 0;
   glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
   if (!ok) {
      char log[4096];
      glGetShaderInfoLog(shader, sizeof log, NULL, log);
      die("a shader did not compile", log);
   }
   return shader;
}

static void open_context(void)
{
   PFNEGLGETPLATFORMDISPLAYEXTPROC platform_display =
      (PFNEGLGETPLATFORMDISPLAYEXTPROC)eglGetProcAddress("eglGetPlatformDisplayEXT");
   if (!platform_display)
      die("EGL has no eglGetPlatformDisplayEXT", NULL);
   EGLDisplay display = platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, NULL);
   if (display == EGL_NO_DISPLAY || !eglInitialize(display, NULL, NULL) ||
       !eglBindAPI(EGL_OPENGL_API))
      die("no surfaceless EGL display with OpenGL", NULL);
   const EGLint attributes[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
                                EGL_CONTEXT_OPENGL_PROFILE_MASK,
                                EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
   EGLContext context = eglCreateContext(display, EGL_NO_CONFIG_KHR, EGL_NO_CONTEXT, attributes);
   if (context == EGL_NO_CONTEXT || !eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, context))
      die("no OpenGL 4.5 core context (the mesh peer needs llvmpipe)", NULL);
}

static double clock_seconds(clockid_t clock)
{
   struct timespec t;
   clock_gettime(clock, &t);
   return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double now(void)
{
   return clock_seconds(CLOCK_MONOTONIC);
}

static int by_value(const void *a, const void *b)
{
   double x = *(const double *)a, y = *(const double *)b;
   return (x > y) - (x < y);
}

/* `N=float:v,v,...` into buffer N. */
static void parse_constants(const char *text, float buffers[MAX_BUFFERS][MAX_WORDS])
{
   int n = -1, used = 0;
   if (sscanf(text, "%d=float:%n", &n, &used) != 1 || n < 0 || n >= MAX_BUFFERS || used == 0)
      die("--const takes N=float:v,v,...", text);
   const char *p = text + used;
   for (int k = 0; k < MAX_WORDS && *p; k++) {
      char *end;
      buffers[n][k] = strtof(p, &end);
      if (end == p)
         die("not a float in --const", p);
      p = *end == ',' ? end + 1 : end;
   }
}

/* The command line. */
struct options {
   const char *mesh_path, *texture_path, *out_path;
   unsigned width, height;
   int frames, samples, depth, blend, cull, clockwise, facets;
   GLenum format;
};

static struct options parse_options(int argc, char **argv,
                                    float constants[MAX_BUFFERS][MAX_WORDS])
{
   struct options o = {NULL, NULL, NULL, 0, 0, 0, 1, 1, 0, 1, 0, 0, GL_SRGB8_ALPHA8};
   for (int i = 1; i + 1 < argc; i += 2) {
      const char *option = argv[i], *value = argv[i + 1];
      if (strcmp(option, "--mesh") == 0)
         o.mesh_path = value;
      else if (strcmp(option, "--texture") == 0)
         o.texture_path = value;
      else if (strcmp(option, "--out") == 0)
         o.out_path = value;
      else if (strcmp(option, "--frames") == 0)
         o.frames = atoi(value);
      else if (strcmp(option, "--size") == 0)
         sscanf(value, "%ux%u", &o.width, &o.height);
      else if (strcmp(option, "--const") == 0)
         parse_constants(value, constants);
      else if (strcmp(option, "--samples") == 0)
         o.samples = atoi(value);
      else if (strcmp(option, "--format") == 0) {
         if (strcmp(value, "srgb8") == 0)
            o.format = GL_SRGB8_ALPHA8;
         else if (strcmp(value, "rgba8") == 0)
            o.format = GL_RGBA8;
         else if (strcmp(value, "rgba16f") == 0)
            o.format = GL_RGBA16F;
         else
            die("--format takes srgb8, rgba8 or rgba16f", value);
      } else if (strcmp(option, "--depth") == 0)
         o.depth = strcmp(value, "none") != 0;
      else if (strcmp(option, "--blend") == 0)
         o.blend = strcmp(value, "alpha") == 0;
      else if (strcmp(option, "--cull") == 0)
         o.cull = strcmp(value, "none") != 0;
      else if (strcmp(option, "--front") == 0)
         o.clockwise = strcmp(value, "cw") == 0;
      else if (strcmp(option, "--stages") == 0) {
         if (strcmp(value, "facets") == 0)
            o.facets = 1;
         else if (strcmp(value, "scene") != 0)
            die("--stages takes scene or facets", value);
      } else
         die("unknown option", option);
   }
   if (!o.mesh_path || !o.texture_path || o.frames <= 0 || o.width == 0 || o.height == 0 ||
       o.samples < 1)
      die("usage: meshbench --mesh F.obj --texture F.png --size WxH --frames N [--out F.png] "
          "--const N=float:...",
          NULL);
   return o;
}

/* The scene's program, or the facets' (all five stages). */
static GLuint build_program(int facets)
{
   GLuint program = glCreateProgram();
   if (facets) {
      glAttachShader(program, compile(GL_VERTEX_SHADER, facets_vertex_glsl));
      glAttachShader(program, compile(GL_TESS_CONTROL_SHADER, facets_control_glsl));
      glAttachShader(program, compile(GL_TESS_EVALUATION_SHADER, facets_eval_glsl));
      glAttachShader(program, compile(GL_GEOMETRY_SHADER, facets_geometry_glsl));
   } else {
      glAttachShader(program, compile(GL_VERTEX_SHADER, vertex_glsl));
   }
   glAttachShader(program, compile(GL_FRAGMENT_SHADER, fragment_glsl));
   glLinkProgram(program);
   GLint linked = 0;
   glGetProgramiv(program, GL_LINK_STATUS, &linked);
   if (!linked)
      die("the program did not link", NULL);
   return program;
}

int main(int argc, char **argv)
{
   static float constants[MAX_BUFFERS][MAX_WORDS];
   const struct options o = parse_options(argc, argv, constants);
   const char *out_path = o.out_path;
   const unsigned width = o.width, height = o.height;
   const int frames = o.frames, samples = o.samples, depth = o.depth, blend = o.blend,
             cull = o.cull, clockwise = o.clockwise, facets = o.facets;
   const GLenum format = o.format;
   struct mesh mesh = load_obj(o.mesh_path);
   unsigned tex_width, tex_height;
   uint8_t *texels = load_png(o.texture_path, &tex_width, &tex_height);
   open_context();

   GLuint program = build_program(facets);

   GLuint vertex_array, buffers[2], blocks[MAX_BUFFERS], texture, target[2], framebuffer;
   glGenVertexArrays(1, &vertex_array);
   glBindVertexArray(vertex_array);
   glGenBuffers(2, buffers);
   glBindBuffer(GL_ARRAY_BUFFER, buffers[0]);
   glBufferData(GL_ARRAY_BUFFER, mesh.vertex_count * 12 * sizeof(float), mesh.attributes,
                GL_STATIC_DRAW);
   for (int a = 0; a < 3; a++) {
      glVertexAttribPointer(a, 4, GL_FLOAT, GL_FALSE, 12 * sizeof(float),
                            (const void *)(uintptr_t)(a * 4 * sizeof(float)));
      glEnableVertexAttribArray(a);
   }
   glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, buffers[1]);
   glBufferData(GL_ELEMENT_ARRAY_BUFFER, mesh.index_count * sizeof(unsigned), mesh.indices,
                GL_STATIC_DRAW);
   glGenBuffers(MAX_BUFFERS, blocks);
   for (int b = 0; b < MAX_BUFFERS; b++) {
      glBindBufferBase(GL_UNIFORM_BUFFER, b, blocks[b]);
      glBufferData(GL_UNIFORM_BUFFER, sizeof constants[b], constants[b], GL_STATIC_DRAW);
   }

   glGenTextures(1, &texture);
   glActiveTexture(GL_TEXTURE0);
   glBindTexture(GL_TEXTURE_2D, texture);
   glTexImage2D(GL_TEXTURE_2D, 0, GL_SRGB8_ALPHA8, tex_width, tex_height, 0, GL_RGBA,
                GL_UNSIGNED_BYTE, texels);
   glGenerateMipmap(GL_TEXTURE_2D);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);
   glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);

   /* the drawn target (multisampled or not) and, for several samples, the
    * single-sample target it is resolved into */
   GLuint resolved = 0, resolve_buffer = 0;
   glGenRenderbuffers(2, target);
   glBindRenderbuffer(GL_RENDERBUFFER, target[0]);
   glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples > 1 ? samples : 0, format, width,
                                    height);
   glGenFramebuffers(1, &framebuffer);
   glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
   glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, target[0]);
   if (depth) {
      glBindRenderbuffer(GL_RENDERBUFFER, target[1]);
      glRenderbufferStorageMultisample(GL_RENDERBUFFER, samples > 1 ? samples : 0,
                                       GL_DEPTH_COMPONENT32F, width, height);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, target[1]);
   }
   if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
      die("the target is not renderable", NULL);
   if (samples > 1) {
      glGenRenderbuffers(1, &resolve_buffer);
      glBindRenderbuffer(GL_RENDERBUFFER, resolve_buffer);
      glRenderbufferStorage(GL_RENDERBUFFER, format, width, height);
      glGenFramebuffers(1, &resolved);
      glBindFramebuffer(GL_FRAMEBUFFER, resolved);
      glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER,
                                resolve_buffer);
      if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE)
         die("the resolve target is not renderable", NULL);
      glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
   }

   /* Counter-clockwise front faces as `tgsi render --front ccw` takes
    * them (the picture is read back flipped, top row first). */
   glClipControl(GL_LOWER_LEFT, GL_ZERO_TO_ONE);
   glViewport(0, 0, width, height);
   glEnable(GL_FRAMEBUFFER_SRGB);
   if (depth) {
      glEnable(GL_DEPTH_TEST);
      glDepthFunc(GL_LESS);
   }
   if (cull) {
      glEnable(GL_CULL_FACE);
      glCullFace(GL_BACK);
   }
   glFrontFace(clockwise ? GL_CW : GL_CCW);
   if (facets)
      glPatchParameteri(GL_PATCH_VERTICES, 3);
   if (blend) {
      glEnable(GL_BLEND);
      glBlendFunc(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA);
   }
   glClearColor(clear_colour[0], clear_colour[1], clear_colour[2], clear_colour[3]);
   glClearDepth(1.0);
   glUseProgram(program);

   double *seconds = calloc(frames, sizeof *seconds);
   double *cpu = calloc(frames, sizeof *cpu);
   for (int f = -1; f < frames; f++) {
      double start = now(), cpu_start = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
      glClear(GL_COLOR_BUFFER_BIT | (depth ? GL_DEPTH_BUFFER_BIT : 0));
      glDrawElements(facets ? GL_PATCHES : GL_TRIANGLES, mesh.index_count, GL_UNSIGNED_INT,
                     NULL);
      if (samples > 1) {
         glBindFramebuffer(GL_DRAW_FRAMEBUFFER, resolved);
         glBlitFramebuffer(0, 0, width, height, 0, 0, width, height, GL_COLOR_BUFFER_BIT,
                           GL_NEAREST);
         glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
      }
      glFinish();
      if (f >= 0) {
         seconds[f] = now() - start;
         cpu[f] = clock_seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu_start;
      }
   }
   if (glGetError() != GL_NO_ERROR)
      die("OpenGL reported an error", NULL);
   qsort(seconds, frames, sizeof *seconds, by_value);
   double median =
      frames % 2 ? seconds[frames / 2] : 0.5 * (seconds[frames / 2 - 1] + seconds[frames / 2]);
   qsort(cpu, frames, sizeof *cpu, by_value);
   double cpu_median = frames % 2 ? cpu[frames / 2] : 0.5 * (cpu[frames / 2 - 1] + cpu[frames / 2]);
   printf("%u triangles, %d frames: median %.6f s per frame, best %.6f, median cpu %.6f s per "
          "frame\n",
          mesh.index_count / 3, frames, median, seconds[0], cpu_median);
   if (out_path) {
      uint8_t *pixels = malloc((size_t)width * height * 4);
      if (samples > 1)
         glBindFramebuffer(GL_READ_FRAMEBUFFER, resolved);
      glReadPixels(0, 0, width, height, GL_RGBA, GL_UNSIGNED_BYTE, pixels);
      save_png(out_path, pixels, width, height);
   }
   return 0;
}
