//! MJCF (MuJoCo XML) import: a subset read with `roxmltree`, which keeps lines.
//!
//! Read: `compiler` (angle, eulerseq, meshdir/assetdir, autolimits,
//! inertiafromgeom), `option` (timestep, gravity, integrator, `flag contact`),
//! `default` classes, `asset` meshes, `worldbody` with nested `body`, `joint`,
//! `freejoint`, `geom`, `site`, `inertial`, the `motor`/`position`/`velocity`
//! actuators on joints, and `include` (at the top level and inside bodies).
//! Everything else is listed in the warnings.
//!
//! The file is walked in three passes so that section order does not matter:
//! settings (compiler, option, defaults, assets), then bodies, then actuators.
//! A body's joints, geoms and sites are read before its child bodies, so joints
//! are grouped by body in MuJoCo's body order.

mod actuators;
mod defaults;
mod geoms;
mod joints;
mod orientation;
mod supported;

use crate::ImportOptions;
use crate::description::*;
use crate::error::{ImportError, Location};
use crate::mesh::MeshTable;
use crate::xml::{SourceFile, describe};
use defaults::{Attrs, Defaults};
use geoms::MeshAsset;
use glam::{DMat3, DVec3};
use orientation::Angles;
use roxmltree::Node;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Reads MJCF text; `file` gives error locations and the directory relative paths
/// (meshdir, include) start from.
pub(crate) fn parse(
    text: &str,
    file: Option<&Path>,
    opts: &ImportOptions,
) -> Result<RobotDescription, ImportError> {
    let src = SourceFile::new(file);
    let doc = src.parse(text)?;
    let root = mujoco_root(&src, doc.root_element())?;
    let model_dir = file.map(|f| f.parent().unwrap_or(Path::new("")).to_path_buf());
    let mut setup = Setup {
        model_dir,
        ..Setup::default()
    };
    let mut warnings = Vec::new();
    let mut stack = Vec::new();
    setup.read(&src, root, &mut warnings, &mut stack)?;
    let mesh_dir = match (&setup.model_dir, &setup.mesh_dir) {
        (Some(d), Some(m)) => Some(d.join(m)),
        (Some(d), None) => Some(d.clone()),
        (None, m) => m.clone(),
    };
    let mut out = Out {
        desc: RobotDescription {
            name: root.attribute("model").unwrap_or("MuJoCo Model").to_owned(),
            format: SourceFormat::Mjcf,
            bodies: Vec::new(),
            joints: Vec::new(),
            geoms: Vec::new(),
            sites: Vec::new(),
            actuators: Vec::new(),
            meshes: Vec::new(),
            options: setup.options,
            warnings,
        },
        meshes: MeshTable::new(mesh_dir.as_deref(), &opts.package_paths),
        names: HashMap::new(),
        stack,
    };
    let cx = Cx {
        setup: &setup,
        src: &src,
    };
    out.top(cx, root, Pass::Bodies)?;
    out.top(cx, root, Pass::Actuators)?;
    let mut desc = out.desc;
    desc.meshes = out.meshes.into_meshes(&mut desc.warnings);
    Ok(desc)
}

fn mujoco_root<'a, 'i>(src: &SourceFile, root: Node<'a, 'i>) -> Result<Node<'a, 'i>, ImportError> {
    if root.tag_name().name() != "mujoco" {
        return Err(ImportError::WrongRoot {
            location: src.at(root),
            found: root.tag_name().name().to_owned(),
            expected: "mujoco",
        });
    }
    Ok(root)
}

/// `inertiafromgeom`: when a body's mass comes from its geoms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum InertiaFromGeom {
    /// Only when the body has no `<inertial>` (MuJoCo's default).
    #[default]
    Auto,
    /// Always, ignoring `<inertial>`.
    Always,
    /// Never.
    Never,
}

/// What the first pass reads: settings that the bodies and actuators need.
#[derive(Debug)]
struct Setup {
    model_dir: Option<PathBuf>,
    mesh_dir: Option<PathBuf>,
    angles: Angles,
    autolimits: bool,
    inertia_from_geom: InertiaFromGeom,
    defaults: Defaults,
    mesh_assets: HashMap<String, MeshAsset>,
    options: SimOptions,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            model_dir: None,
            mesh_dir: None,
            angles: Angles::default(),
            autolimits: true,
            inertia_from_geom: InertiaFromGeom::Auto,
            defaults: Defaults::default(),
            mesh_assets: HashMap::new(),
            options: SimOptions::default(),
        }
    }
}

impl Setup {
    /// Pass 1 over the top-level elements (and included files).
    fn read(
        &mut self,
        src: &SourceFile,
        root: Node,
        warnings: &mut Vec<String>,
        stack: &mut Vec<PathBuf>,
    ) -> Result<(), ImportError> {
        supported::check(src, root, warnings);
        for node in root.children().filter(Node::is_element) {
            match node.tag_name().name() {
                "compiler" => self.compiler(src, node, warnings)?,
                "option" => self.option(src, node, warnings)?,
                "default" => self.defaults.read(src, node, None, warnings)?,
                "asset" => self.asset(src, node, warnings)?,
                "include" => {
                    let (path, text) = read_include(src, node, self.model_dir.as_deref(), stack)?;
                    let inc = SourceFile::new(Some(&path));
                    let doc = inc.parse(&text)?;
                    stack.push(path);
                    self.read(
                        &inc,
                        mujoco_root(&inc, doc.root_element())?,
                        warnings,
                        stack,
                    )?;
                    stack.pop();
                }
                "worldbody" | "actuator" => {}
                _ => supported::unsupported(src, node, warnings),
            }
        }
        Ok(())
    }

    fn compiler(
        &mut self,
        src: &SourceFile,
        node: Node,
        warnings: &mut Vec<String>,
    ) -> Result<(), ImportError> {
        supported::check(src, node, warnings);
        let a = Attrs::plain(src, node);
        match a.get("angle") {
            None => {}
            Some("degree") => self.angles.degrees = true,
            Some("radian") => self.angles.degrees = false,
            Some(_) => return Err(a.bad_value("angle", "expected degree or radian")),
        }
        if let Some(seq) = orientation::euler_seq(&a)? {
            self.angles.euler_seq = seq;
        }
        if let Some(d) = a.get("meshdir").or(a.get("assetdir")) {
            self.mesh_dir = Some(PathBuf::from(d));
        }
        self.autolimits = a.tristate("autolimits", self.autolimits)?;
        self.inertia_from_geom = match a.get("inertiafromgeom") {
            None => self.inertia_from_geom,
            Some("auto") => InertiaFromGeom::Auto,
            Some("true") => InertiaFromGeom::Always,
            Some("false") => InertiaFromGeom::Never,
            Some(_) => return Err(a.bad_value("inertiafromgeom", "expected true, false or auto")),
        };
        if a.get("coordinate").is_some_and(|c| c != "local") {
            return Err(a.bad_value(
                "coordinate",
                "only local coordinates are supported (as in MuJoCo 2.3.3 and later)",
            ));
        }
        Ok(())
    }

    fn option(
        &mut self,
        src: &SourceFile,
        node: Node,
        warnings: &mut Vec<String>,
    ) -> Result<(), ImportError> {
        supported::check(src, node, warnings);
        let a = Attrs::plain(src, node);
        if let Some(dt) = a.floats("timestep", Some(1))? {
            if dt[0] <= 0.0 {
                return Err(a.bad_value("timestep", "the time step must be positive"));
            }
            self.options.timestep = Some(dt[0]);
        }
        self.options.gravity = a.vec3_or("gravity", self.options.gravity)?;
        self.options.integrator = match a.get("integrator") {
            None => self.options.integrator,
            Some("Euler") => Integrator::Euler,
            Some("RK4") => Integrator::Rk4,
            Some("implicit") => Integrator::Implicit,
            Some("implicitfast") => Integrator::ImplicitFast,
            Some(_) => {
                return Err(a.bad_value(
                    "integrator",
                    "expected Euler, RK4, implicit or implicitfast",
                ));
            }
        };
        for child in node.children().filter(Node::is_element) {
            if child.tag_name().name() != "flag" {
                supported::unsupported(src, child, warnings);
                continue;
            }
            supported::check(src, child, warnings);
            let f = Attrs::plain(src, child);
            match f.get("contact") {
                None => {}
                Some("enable") => self.options.contacts = true,
                Some("disable") => self.options.contacts = false,
                Some(_) => return Err(f.bad_value("contact", "expected enable or disable")),
            }
        }
        Ok(())
    }

    fn asset(
        &mut self,
        src: &SourceFile,
        node: Node,
        warnings: &mut Vec<String>,
    ) -> Result<(), ImportError> {
        for child in node.children().filter(Node::is_element) {
            if child.tag_name().name() != "mesh" {
                supported::unsupported(src, child, warnings);
                continue;
            }
            supported::check(src, child, warnings);
            let a = Attrs::new(src, child, &self.defaults, None)?;
            let file = a.get("file").ok_or_else(|| a.missing("file"))?;
            let name = match a.get("name") {
                Some(n) => n.to_owned(),
                None => Path::new(file)
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
            };
            let scale = a.vec3_or("scale", DVec3::ONE)?;
            let asset = MeshAsset {
                file: file.to_owned(),
                scale,
                location: src.at(child),
            };
            if let Some(first) = self.mesh_assets.get(&name) {
                return Err(ImportError::DuplicateName {
                    location: src.at(child),
                    kind: "mesh",
                    name,
                    first: first.location.clone(),
                });
            }
            self.mesh_assets.insert(name, asset);
        }
        Ok(())
    }
}

/// Reads an `<include file>`; refuses include cycles.
fn read_include(
    src: &SourceFile,
    node: Node,
    model_dir: Option<&Path>,
    stack: &[PathBuf],
) -> Result<(PathBuf, String), ImportError> {
    supported::check(src, node, &mut Vec::new());
    let a = Attrs::plain(src, node);
    let file = a.get("file").ok_or_else(|| a.missing("file"))?;
    let path = model_dir.map_or_else(|| PathBuf::from(file), |d| d.join(file));
    if stack.contains(&path) || src.path.as_deref() == Some(path.as_path()) {
        return Err(a.bad_value("file", "this file includes itself (an include cycle)"));
    }
    let text = std::fs::read_to_string(&path).map_err(|source| ImportError::Io {
        path: path.clone(),
        source,
    })?;
    Ok((path, text))
}

/// Which top-level sections a pass reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pass {
    Bodies,
    Actuators,
}

/// Which of a body's children a sub-pass reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Joints, geoms, sites.
    Own,
    /// Child bodies.
    Children,
}

/// Read-only context: the settings and the file being read.
#[derive(Clone, Copy)]
struct Cx<'a> {
    setup: &'a Setup,
    src: &'a SourceFile,
}

impl<'a> Cx<'a> {
    fn attrs<'n, 'i>(
        &self,
        node: Node<'n, 'i>,
        childclass: Option<&str>,
    ) -> Result<Attrs<'n, 'i>, ImportError>
    where
        'a: 'n,
    {
        Attrs::new(self.src, node, &self.setup.defaults, childclass)
    }
}

/// What passes 2 and 3 build.
struct Out<'o> {
    desc: RobotDescription,
    meshes: MeshTable<'o>,
    /// Names seen, per kind, with where.
    names: HashMap<&'static str, HashMap<String, Location>>,
    stack: Vec<PathBuf>,
}

impl Out<'_> {
    fn warn(&mut self, cx: Cx, node: Node) {
        supported::check(cx.src, node, &mut self.desc.warnings);
    }

    /// Records a name; an error if the kind already has it.
    fn claim(
        &mut self,
        cx: Cx,
        node: Node,
        kind: &'static str,
        name: &str,
    ) -> Result<(), ImportError> {
        let seen = self.names.entry(kind).or_default();
        if let Some(first) = seen.get(name) {
            return Err(ImportError::DuplicateName {
                location: cx.src.at(node),
                kind,
                name: name.to_owned(),
                first: first.clone(),
            });
        }
        seen.insert(name.to_owned(), cx.src.at(node));
        Ok(())
    }

    /// Runs `f` on the root of an included file, with that file as the source.
    fn include(
        &mut self,
        cx: Cx,
        node: Node,
        f: &mut dyn FnMut(&mut Self, Cx, Node) -> Result<(), ImportError>,
    ) -> Result<(), ImportError> {
        let (path, text) = read_include(cx.src, node, cx.setup.model_dir.as_deref(), &self.stack)?;
        let src = SourceFile::new(Some(&path));
        let doc = src.parse(&text)?;
        let root = mujoco_root(&src, doc.root_element())?;
        self.stack.push(path);
        let r = f(
            self,
            Cx {
                setup: cx.setup,
                src: &src,
            },
            root,
        );
        self.stack.pop();
        r
    }

    /// Passes 2 and 3 over the top-level elements.
    fn top(&mut self, cx: Cx, root: Node, pass: Pass) -> Result<(), ImportError> {
        for node in root.children().filter(Node::is_element) {
            match (node.tag_name().name(), pass) {
                ("worldbody", Pass::Bodies) => {
                    self.warn(cx, node);
                    self.contents(cx, node, None, None, Part::Own)?;
                    self.contents(cx, node, None, None, Part::Children)?;
                }
                ("actuator", Pass::Actuators) => self.actuators(cx, node)?,
                ("include", _) => self.include(cx, node, &mut |out, cx, r| out.top(cx, r, pass))?,
                _ => {}
            }
        }
        Ok(())
    }

    /// One sub-pass over the children of a body (or of the worldbody: `body` None).
    fn contents(
        &mut self,
        cx: Cx,
        node: Node,
        body: Option<usize>,
        childclass: Option<&str>,
        part: Part,
    ) -> Result<(), ImportError> {
        for child in node.children().filter(Node::is_element) {
            let tag = child.tag_name().name();
            match (tag, part) {
                ("body", Part::Children) => self.body(cx, child, body, childclass)?,
                ("joint" | "freejoint", Part::Own) => {
                    let Some(b) = body else {
                        return Err(ImportError::BadValue {
                            location: cx.src.at(child),
                            element: describe(child),
                            attribute: String::new(),
                            value: String::new(),
                            message: "joints belong in a <body>, not in <worldbody>".into(),
                        });
                    };
                    self.warn(cx, child);
                    let joint = if tag == "joint" {
                        self.joint(cx, &cx.attrs(child, childclass)?, b)?
                    } else {
                        self.free_joint(cx, child, b)?
                    };
                    self.claim(cx, child, "joint", &joint.name)?;
                    self.desc.bodies[b].joints.push(self.desc.joints.len());
                    self.desc.joints.push(joint);
                }
                ("geom", Part::Own) => {
                    self.warn(cx, child);
                    let attrs = cx.attrs(child, childclass)?;
                    if let Some(name) = attrs.node.attribute("name") {
                        self.claim(cx, child, "geom", name)?;
                    }
                    if let Some(g) = self.geom(cx, &attrs, body)? {
                        self.desc.geoms.push(g);
                    }
                }
                ("site", Part::Own) => {
                    self.warn(cx, child);
                    let attrs = cx.attrs(child, childclass)?;
                    let name = match child.attribute("name") {
                        Some(n) => n.to_owned(),
                        None => format!("site{}", self.desc.sites.len()),
                    };
                    self.claim(cx, child, "site", &name)?;
                    let pose = cx.setup.angles.pose(&attrs)?;
                    self.desc.sites.push(Site { name, body, pose });
                }
                ("inertial", Part::Own) if body.is_some() => {}
                ("include", _) => {
                    self.include(cx, child, &mut |out, cx, r| {
                        out.contents(cx, r, body, childclass, part)
                    })?;
                }
                (_, Part::Own) if tag != "body" => {
                    supported::unsupported(cx.src, child, &mut self.desc.warnings)
                }
                _ => {}
            }
        }
        Ok(())
    }

    fn body(
        &mut self,
        cx: Cx,
        node: Node,
        parent: Option<usize>,
        childclass: Option<&str>,
    ) -> Result<(), ImportError> {
        self.warn(cx, node);
        let attrs = Attrs::plain(cx.src, node);
        let index = self.desc.bodies.len();
        let name = match node.attribute("name") {
            Some(n) => n.to_owned(),
            None => format!("body{index}"),
        };
        self.claim(cx, node, "body", &name)?;
        let childclass = node.attribute("childclass").or(childclass);
        if let Some(c) = childclass {
            cx.setup.defaults.lookup(cx.src, node, c)?;
        }
        let pose = cx.setup.angles.pose(&attrs)?;
        let inertials: Vec<Node> = node
            .children()
            .filter(|c| c.has_tag_name("inertial"))
            .collect();
        if inertials.len() > 1 {
            return Err(Attrs::plain(cx.src, inertials[1])
                .bad_value("", "a body has at most one <inertial>"));
        }
        let explicit = match inertials.first() {
            Some(n) => Some(self.inertial(cx, *n)?),
            None => None,
        };
        let mass = match (cx.setup.inertia_from_geom, explicit) {
            (InertiaFromGeom::Always, _) | (InertiaFromGeom::Auto, None) => MassSource::FromGeoms,
            (_, Some(i)) => MassSource::Explicit(i),
            (InertiaFromGeom::Never, None) => MassSource::Massless,
        };
        self.desc.bodies.push(Body {
            name,
            parent,
            pose,
            mass,
            joints: Vec::new(),
        });
        self.contents(cx, node, Some(index), childclass, Part::Own)?;
        self.contents(cx, node, Some(index), childclass, Part::Children)
    }

    fn inertial(&mut self, cx: Cx, node: Node) -> Result<Inertial, ImportError> {
        self.warn(cx, node);
        let a = Attrs::plain(cx.src, node);
        let mass = a
            .floats("mass", Some(1))?
            .ok_or_else(|| a.missing("mass"))?[0];
        if mass < 0.0 {
            return Err(a.bad_value("mass", "mass must not be negative"));
        }
        let frame = cx.setup.angles.pose(&a)?;
        let inertia = match (
            a.floats("diaginertia", Some(3))?,
            a.floats("fullinertia", Some(6))?,
        ) {
            (Some(d), None) => {
                if d.iter().any(|&x| x < 0.0) {
                    return Err(
                        a.bad_value("diaginertia", "principal moments must not be negative")
                    );
                }
                DMat3::from_diagonal(DVec3::new(d[0], d[1], d[2]))
            }
            // MuJoCo's order: ixx iyy izz ixy ixz iyz.
            (None, Some(f)) => {
                DMat3::from_cols_array(&[f[0], f[3], f[4], f[3], f[1], f[5], f[4], f[5], f[2]])
            }
            (Some(_), Some(_)) => {
                return Err(a.bad_value("fullinertia", "give diaginertia or fullinertia, not both"));
            }
            (None, None) => return Err(a.missing("diaginertia or fullinertia")),
        };
        Ok(Inertial {
            mass,
            frame,
            inertia,
        })
    }
}
